// Trellis implementation of the IEEE 1516.1-2010 C++ API: implementation-specific settings.
//
// Smart pointers: IEEE 1516.1-2010 returns std::auto_ptr (createRTIambassador,
// LogicalTimeFactory::makeInitial, DataElement::clone, ...). std::auto_ptr is gone from
// C++17 on, where the SISO dynamic-link-compatible API returns std::unique_ptr instead.
// RTI_UNIQUE_PTR is std::auto_ptr before C++17 and std::unique_ptr from C++17; define
// RTI_USE_UNIQUE_PTR (or RTI_USE_AUTO_PTR) before including to choose explicitly. Code that
// writes `factory.createRTIambassador().release()` or `auto` compiles either way.
//
// Exception specifications: the standard declares `throw (...)` lists on every service and
// callback. C++17 removed dynamic exception specifications, so these headers declare none
// (the lists are in the comments): an ambassador override that still declares
// `throw (rti1516e::FederateInternalError)` compiles as C++11, and one without compiles as
// C++11 and C++17.
#ifndef RTI_SpecificConfig_h
#define RTI_SpecificConfig_h

#include <memory>

#if defined(_WIN32)
#  if defined(BUILDING_RTI)
#    define RTI_EXPORT __declspec(dllexport)
#  else
#    define RTI_EXPORT __declspec(dllimport)
#  endif
#  if defined(BUILDING_FEDTIME)
#    define RTI_EXPORT_FEDTIME __declspec(dllexport)
#  else
#    define RTI_EXPORT_FEDTIME __declspec(dllimport)
#  endif
#else
#  define RTI_EXPORT __attribute__((visibility("default")))
#  define RTI_EXPORT_FEDTIME __attribute__((visibility("default")))
#endif
#define FEDTIME_EXPORT RTI_EXPORT_FEDTIME

#if defined(RTI_USE_AUTO_PTR)
#  define RTI_UNIQUE_PTR std::auto_ptr
#elif defined(RTI_USE_UNIQUE_PTR) || __cplusplus >= 201703L
#  define RTI_UNIQUE_PTR std::unique_ptr
#else
#  define RTI_UNIQUE_PTR std::auto_ptr
#endif

// std::auto_ptr is deprecated since C++11; the standard's signatures still name it.
#if defined(__GNUC__)
#  define RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN \
     _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#  define RTI_SUPPRESS_AUTO_PTR_WARNING_END _Pragma("GCC diagnostic pop")
#else
#  define RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
#  define RTI_SUPPRESS_AUTO_PTR_WARNING_END
#endif

#endif  // RTI_SpecificConfig_h
