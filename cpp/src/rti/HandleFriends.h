// Internal: how the implementation makes handles from Trellis values and reads them back.
#ifndef TRELLIS_HANDLE_FRIENDS_H
#define TRELLIS_HANDLE_FRIENDS_H

#include <RTI/Handle.h>
#include <stdint.h>

namespace rti1516e {

#define TRELLIS_HANDLE_FRIEND(HandleKind)                                                \
  class HandleKind##Friend {                                                             \
   public:                                                                               \
    static HandleKind create(uint64_t value) {                                           \
      HandleKind handle;                                                                 \
      handle._value = value;                                                             \
      return handle;                                                                     \
    }                                                                                    \
    static uint64_t value(HandleKind const& handle) { return handle._value; }            \
    /* Throws CouldNotDecode unless the data is 8 bytes. */                              \
    static HandleKind decode(VariableLengthData const& encoded) { return HandleKind(encoded); } \
  };

TRELLIS_HANDLE_FRIEND(FederateHandle)
TRELLIS_HANDLE_FRIEND(ObjectClassHandle)
TRELLIS_HANDLE_FRIEND(InteractionClassHandle)
TRELLIS_HANDLE_FRIEND(ObjectInstanceHandle)
TRELLIS_HANDLE_FRIEND(AttributeHandle)
TRELLIS_HANDLE_FRIEND(ParameterHandle)
TRELLIS_HANDLE_FRIEND(DimensionHandle)
TRELLIS_HANDLE_FRIEND(MessageRetractionHandle)
TRELLIS_HANDLE_FRIEND(RegionHandle)

#undef TRELLIS_HANDLE_FRIEND

}  // namespace rti1516e

#endif
