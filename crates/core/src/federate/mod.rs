//! The federate library's state machine (the local RTI component): object model handles,
//! declarations, objects, interactions and regions, turned into interest ids and data
//! frames on the way out and into callbacks on the way in.

pub mod message;
pub mod region;
