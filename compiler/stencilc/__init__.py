"""stencilc: a compiler and runtime for out-of-core stencil simulations."""

__version__ = "0.1.0"
