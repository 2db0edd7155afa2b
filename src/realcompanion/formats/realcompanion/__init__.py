"""The RealCompanion format's own parts: its generator (`synth`) and its reference scorer (`scoring`)."""
