"""Reading a posted move: the decision forms, the registry of the special forms, the decision
panel's shapes."""
