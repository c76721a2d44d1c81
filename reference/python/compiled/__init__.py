"""Compiled training: one `ampbench run --dump` case trained with
torch.compile (forward and backward through AOTAutograd and Inductor) under
the case's autocast, GradScaler and workload, through replay.py's own loop;
the record is what the C++ checker judges (docs/compiled.md).

  cli.py        the command line, exit statuses
  main.py       load and refuse, run, name the failure
  run.py        the phases: recorded (cold), throughput, fullgraph probe, warm
  compiling.py  torch.compile of the models (in place) and optimizer steps
  toolchain.py  refusals, the C++ compiler check, Inductor/Dynamo settings
  ledger.py     graphs, graph breaks, recompilations, compile seconds
  fullgraph.py  the fullgraph=True probe
  timing.py     step clock, throughput
  record.py     flattening in runner.cpp's order, the probe, the JSON
  fault.py      the test-only fault
  guard.py      the wall-clock limit
  errors.py     exit statuses and one-line reasons
  options.py    what a run is asked to do
"""
