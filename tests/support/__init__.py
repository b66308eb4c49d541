"""What the test modules share: references, generators of inputs, fixtures' builders
and the test environment (:mod:`tests.support.env`).  No test module imports
another; each imports what it shares from here."""
