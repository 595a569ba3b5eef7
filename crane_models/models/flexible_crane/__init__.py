"""The crane on flexible supports with a flexible link, joint friction and programmed motion
(Jarzębowska, Urbaś & Augustynek 2019): parameters, the model, its FMU and demo scenarios."""

ORDER = 3  # place in listings (build, demo)
