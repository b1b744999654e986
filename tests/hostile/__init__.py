"""Hostile submissions: attacks/ holds one submission fragment per attack; test_attacks.py grades them."""
