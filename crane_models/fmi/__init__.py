"""The FMI layer: FMU spec types, the adapter to the pythonfmu slave API, saved states, the FMU instance wrapper for
masters, the build from specs, OSP and SSP files, cross-builds and the FMUs' own runtime. Knows no crane: the FMUs
and their data come as arguments (the project's are ``models.registry``); nothing here imports ``models/``."""
