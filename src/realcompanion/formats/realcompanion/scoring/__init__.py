"""RealCompanion's reference scoring (SPEC §5; paper Tables 3-6, 28-44): gold sets, metrics, baselines, judged
quantities and the method's fixed settings."""
