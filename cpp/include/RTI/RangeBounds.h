// IEEE 1516.1-2010 C++ API: the [lower, upper) range of a region on one dimension.
#ifndef RTI_RangeBounds_h
#define RTI_RangeBounds_h

#include <RTI/SpecificConfig.h>

namespace rti1516e {

class RTI_EXPORT RangeBounds {
 public:
  RangeBounds();
  RangeBounds(unsigned long lowerBound, unsigned long upperBound);
  ~RangeBounds();
  RangeBounds(RangeBounds const& rhs);
  RangeBounds& operator=(RangeBounds const& rhs);
  unsigned long getLowerBound() const;
  unsigned long getUpperBound() const;
  void setLowerBound(unsigned long lowerBound);
  void setUpperBound(unsigned long upperBound);

 private:
  unsigned long _lowerBound;
  unsigned long _upperBound;
};

}  // namespace rti1516e

#endif  // RTI_RangeBounds_h
