package proxy

// IoctlGetTermios lets the external tests read a terminal's mode on every OS.
const IoctlGetTermios = ioctlGetTermios
