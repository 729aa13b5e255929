//! Object models (IEEE 1516-2010 OMT / FDD XML). Being written.
