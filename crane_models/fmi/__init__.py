"""The FMI layer: FMU spec types, the adapter to the pythonfmu slave API, the FMU instance wrapper for masters, OSP
files, the registry of every FMU and the build. Knows nothing of the physics beyond the specs."""
