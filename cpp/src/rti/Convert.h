// Internal: the API's handles, sets, maps and buffers as the C ABI's arrays (which borrow
// from the C++ values for the length of one call) and back.
#ifndef TRELLIS_CONVERT_H
#define TRELLIS_CONVERT_H

#include <RTI/Typedefs.h>
#include <trellis_rti.h>

#include <set>
#include <string>
#include <vector>

#include "HandleFriends.h"
#include "Strings.h"

namespace trellis_cpp {

using namespace rti1516e;

inline TrellisBytes bytes(VariableLengthData const& data) {
  TrellisBytes out;
  out.data = static_cast<uint8_t const*>(data.data());
  out.len = data.size();
  return out;
}

template <typename Friend, typename Set>
std::vector<uint64_t> values(Set const& handles) {
  std::vector<uint64_t> out;
  out.reserve(handles.size());
  for (typename Set::const_iterator i = handles.begin(); i != handles.end(); ++i)
    out.push_back(Friend::value(*i));
  return out;
}

inline std::vector<uint64_t> attributes(AttributeHandleSet const& set) {
  return values<AttributeHandleFriend>(set);
}
inline std::vector<uint64_t> regions(RegionHandleSet const& set) {
  return values<RegionHandleFriend>(set);
}

// The values of one call as the C ABI takes them, in a buffer kept per thread and template:
// a federate that updates in a loop allocates nothing here. Valid until the next call on the
// thread; the C ABI reads it during the call only.
template <typename Friend, typename Map>
std::vector<TrellisHandleValue> const& handleValues(Map const& map) {
  static thread_local std::vector<TrellisHandleValue> out;
  out.clear();
  for (typename Map::const_iterator i = map.begin(); i != map.end(); ++i) {
    TrellisHandleValue value;
    value.handle = Friend::value(i->first);
    value.value = bytes(i->second);
    out.push_back(value);
  }
  return out;
}

// Pairs of (attributes, regions) as the C ABI takes them; keeps the arrays alive.
class RegionPairs {
 public:
  explicit RegionPairs(AttributeHandleSetRegionHandleSetPairVector const& pairs) {
    for (size_t i = 0; i < pairs.size(); ++i) {
      attributes_.push_back(attributes(pairs[i].first));
      regions_.push_back(regions(pairs[i].second));
    }
    for (size_t i = 0; i < pairs.size(); ++i) {
      TrellisAttributeRegions pair;
      pair.attributes = attributes_[i].empty() ? 0 : &attributes_[i][0];
      pair.attribute_count = attributes_[i].size();
      pair.regions = regions_[i].empty() ? 0 : &regions_[i][0];
      pair.region_count = regions_[i].size();
      pairs_.push_back(pair);
    }
  }
  TrellisAttributeRegions const* data() const { return pairs_.empty() ? 0 : &pairs_[0]; }
  size_t size() const { return pairs_.size(); }

 private:
  std::vector<std::vector<uint64_t> > attributes_;
  std::vector<std::vector<uint64_t> > regions_;
  std::vector<TrellisAttributeRegions> pairs_;
};

template <typename T>
T const* data(std::vector<T> const& v) {
  return v.empty() ? 0 : &v[0];
}

// A string the library allocated, as a std::wstring, freed.
inline std::wstring takeString(char* text) {
  std::wstring out = fromUtf8(text);
  trellis_string_free(text);
  return out;
}

}  // namespace trellis_cpp

#endif
