"""The WaveVessel: a vessel's reference-point motion in a sea from RAO tables (issue 36)."""
