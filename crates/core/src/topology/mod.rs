//! Topology files: routers, cliques and parent links as a block graph. Being written.
