"""The fault suite: hostile inputs, crashes at random moments, concurrent writers and readers,
and persona walls, each run against the real product and counted (`shu faults`)."""
