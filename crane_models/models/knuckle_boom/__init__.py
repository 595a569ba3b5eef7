"""The knuckle boom crane with two hydraulic cylinders (Cibicik & Egeland 2018): bodies and
parameters, the model, its FMU and demo scenario."""

ORDER = 1  # place in listings (build, demo)
