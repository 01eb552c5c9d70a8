"""Reading user files line by line with precise errors, and writing outputs atomically."""
