// Internal: the C ABI's callback table, each entry turning C arguments into the API's types
// and calling the ambassador's FederateAmbassador.
#ifndef TRELLIS_CALLBACKS_H
#define TRELLIS_CALLBACKS_H

#include <trellis_rti.h>

namespace trellis_cpp {

class Ambassador;

TrellisCallbacks callbackTable(Ambassador* ambassador);

}  // namespace trellis_cpp

#endif
