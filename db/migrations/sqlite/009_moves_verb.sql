-- A logged move's action is its verb (Move.verb), as the engines call it; 'kind' is a game's.
ALTER TABLE moves RENAME COLUMN kind TO verb
