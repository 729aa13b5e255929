// Time management (IEEE 1516.1-2010 §8).
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>
#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>

#include "Ambassador.h"
#include "Convert.h"
#include "Errors.h"

namespace trellis_cpp {

namespace {
// Write a time from the C ABI into the caller's LogicalTime of the federation's type.
void assign(LogicalTime& target, TrellisTime const& value) {
  if (HLAinteger64Time* integer = dynamic_cast<HLAinteger64Time*>(&target)) {
    integer->setTime(value.integer);
  } else if (HLAfloat64Time* floating = dynamic_cast<HLAfloat64Time*>(&target)) {
    floating->setTime(value.floating);
  } else {
    throw InvalidLogicalTime(L"Trellis fills HLAinteger64Time or HLAfloat64Time, not " + target.implementationName());
  }
}

void assign(LogicalTimeInterval& target, TrellisTime const& value) {
  if (HLAinteger64Interval* integer = dynamic_cast<HLAinteger64Interval*>(&target)) {
    integer->setInterval(value.integer);
  } else if (HLAfloat64Interval* floating = dynamic_cast<HLAfloat64Interval*>(&target)) {
    floating->setInterval(value.floating);
  } else {
    throw InvalidLogicalTimeInterval(L"Trellis fills HLAinteger64Interval or HLAfloat64Interval, not " +
                                     target.implementationName());
  }
}
}  // namespace

void Ambassador::enableTimeRegulation(LogicalTimeInterval const& theLookahead) {
  TrellisRti* rti = joined();
  check(trellis_enable_time_regulation(rti, toC(theLookahead)));
}

void Ambassador::disableTimeRegulation() { check(trellis_disable_time_regulation(joined())); }
void Ambassador::enableTimeConstrained() { check(trellis_enable_time_constrained(joined())); }
void Ambassador::disableTimeConstrained() { check(trellis_disable_time_constrained(joined())); }

void Ambassador::timeAdvanceRequest(LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  check(trellis_time_advance_request(rti, toC(theTime)));
}

void Ambassador::timeAdvanceRequestAvailable(LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  check(trellis_time_advance_request_available(rti, toC(theTime)));
}

void Ambassador::nextMessageRequest(LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  check(trellis_next_message_request(rti, toC(theTime)));
}

void Ambassador::nextMessageRequestAvailable(LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  check(trellis_next_message_request_available(rti, toC(theTime)));
}

void Ambassador::flushQueueRequest(LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  check(trellis_flush_queue_request(rti, toC(theTime)));
}

void Ambassador::enableAsynchronousDelivery() { check(trellis_set_asynchronous_delivery(joined(), true)); }
void Ambassador::disableAsynchronousDelivery() { check(trellis_set_asynchronous_delivery(joined(), false)); }

bool Ambassador::queryGALT(LogicalTime& theTime) {
  TrellisTime value = {0, 0.0};
  bool valid = false;
  check(trellis_query_galt(joined(), &value, &valid));
  if (valid) assign(theTime, value);
  return valid;
}

void Ambassador::queryLogicalTime(LogicalTime& theTime) {
  TrellisTime value = {0, 0.0};
  check(trellis_query_logical_time(joined(), &value));
  assign(theTime, value);
}

bool Ambassador::queryLITS(LogicalTime& theTime) {
  TrellisTime value = {0, 0.0};
  bool valid = false;
  check(trellis_query_lits(joined(), &value, &valid));
  if (valid) assign(theTime, value);
  return valid;
}

void Ambassador::modifyLookahead(LogicalTimeInterval const& theLookahead) {
  TrellisRti* rti = joined();
  check(trellis_modify_lookahead(rti, toC(theLookahead)));
}

void Ambassador::queryLookahead(LogicalTimeInterval& interval) {
  TrellisTime value = {0, 0.0};
  check(trellis_query_lookahead(joined(), &value));
  assign(interval, value);
}

void Ambassador::retract(MessageRetractionHandle theHandle) {
  check(trellis_retract(joined(), MessageRetractionHandleFriend::value(theHandle)));
}

void Ambassador::changeAttributeOrderType(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes,
                                          OrderType theType) {
  std::vector<uint64_t> const list = attributes(theAttributes);
  check(trellis_change_attribute_order_type(joined(), ObjectInstanceHandleFriend::value(theObject), data(list),
                                            list.size(), static_cast<int32_t>(theType)));
}

void Ambassador::changeInteractionOrderType(InteractionClassHandle theClass, OrderType theType) {
  check(trellis_change_interaction_order_type(joined(), InteractionClassHandleFriend::value(theClass),
                                              static_cast<int32_t>(theType)));
}

}  // namespace trellis_cpp
