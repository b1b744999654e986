"""Hostile submissions: attacks/ holds one submission fragment per attack; test_hostile.py grades them."""
