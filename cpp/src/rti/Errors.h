// Internal: a C ABI status to the IEEE 1516.1-2010 exception it stands for.
#ifndef TRELLIS_ERRORS_H
#define TRELLIS_ERRORS_H

#include <trellis_rti.h>

namespace trellis_cpp {

// Throws the exception for `status` with trellis_last_error() as its message; returns on
// TRELLIS_OK.
void check(TrellisStatus status);

}  // namespace trellis_cpp

#endif
