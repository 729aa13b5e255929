//! The live monitor page (being built).
