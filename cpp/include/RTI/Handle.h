// IEEE 1516.1-2010 C++ API: the handle classes.
//
// On purpose, and unlike the sample layout in the standard's annex, a handle holds its value
// inline (`_value`, invalid = all ones) instead of a pointer to a heap implementation, so
// copying handles into sets and maps allocates nothing. The public interface is the
// standard's. Encoded form: 8 bytes, big-endian.
#ifndef RTI_Handle_h
#define RTI_Handle_h

#include <RTI/Exception.h>
#include <RTI/SpecificConfig.h>
#include <RTI/VariableLengthData.h>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace rti1516e {

#define RTI_DEFINE_HANDLE_CLASS(HandleKind)                         \
  class HandleKind##Friend;                                         \
  class RTI_EXPORT HandleKind {                                     \
   public:                                                          \
    HandleKind();                                                   \
    ~HandleKind();                                                  \
    HandleKind(HandleKind const& rhs);                              \
    HandleKind& operator=(HandleKind const& rhs);                   \
    bool isValid() const;                                           \
    bool operator==(HandleKind const& rhs) const;                   \
    bool operator!=(HandleKind const& rhs) const;                   \
    bool operator<(HandleKind const& rhs) const;                    \
    long hash() const;                                              \
    VariableLengthData encode() const;                              \
    void encode(VariableLengthData& buffer) const;                  \
    size_t encode(void* buffer, size_t bufferSize) const;           \
    size_t encodedLength() const;                                   \
    std::wstring toString() const;                                  \
                                                                    \
   protected:                                                       \
    friend class HandleKind##Friend;                                \
    explicit HandleKind(VariableLengthData const& encodedValue);    \
    unsigned long long _value;                                      \
  };                                                                \
  RTI_EXPORT std::wostream& operator<<(std::wostream&, HandleKind const&);

RTI_DEFINE_HANDLE_CLASS(FederateHandle)
RTI_DEFINE_HANDLE_CLASS(ObjectClassHandle)
RTI_DEFINE_HANDLE_CLASS(InteractionClassHandle)
RTI_DEFINE_HANDLE_CLASS(ObjectInstanceHandle)
RTI_DEFINE_HANDLE_CLASS(AttributeHandle)
RTI_DEFINE_HANDLE_CLASS(ParameterHandle)
RTI_DEFINE_HANDLE_CLASS(DimensionHandle)
RTI_DEFINE_HANDLE_CLASS(MessageRetractionHandle)
RTI_DEFINE_HANDLE_CLASS(RegionHandle)

#undef RTI_DEFINE_HANDLE_CLASS

}  // namespace rti1516e

#endif  // RTI_Handle_h
