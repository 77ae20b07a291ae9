//! bgfast's own net file (`.bgnet`): versioned, checksummed, and the shipped wildbg net.
