# Shadows scikit-learn for the bad-input test: a venv without it.
raise ImportError("No module named 'sklearn'")
