"""Analysis of many runs: fatigue measures of output series (:mod:`.fatigue`), sweep case files
(:mod:`.cases`), sweeps on Dask (:mod:`.sweep`), their Parquet results (:mod:`.results`) and reports
(:mod:`.report`)."""
