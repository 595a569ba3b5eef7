"""A vessel in waves from its RAOs (``WaveVessel``): the motion of its reference point in the sea of
``core.sea``, superposed over the sea's components, with the moving-base cranes' motion outputs (docs/sea.md)."""
ORDER = 40
