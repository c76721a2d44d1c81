// Anchors the precompiled header target; intentionally empty.
