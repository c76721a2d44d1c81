"""The Python reference: the suite's workloads written with PyTorch's Python
API (torch.autocast + torch.amp.GradScaler), replayed on `ampbench run --dump`
output and compared with what the C++ harness computed (check.py), and timed
on the same suites (bench.py).
"""
