"""Live updates: the websocket consumers, their routing, and the spectators' hub that shares one
rendering of a game among its spectators."""
