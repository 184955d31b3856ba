-- A daily play keeps the person's own name on Discord (their global display name, or their
-- username), the same in every server, beside the name in the server where it began (a
-- nickname there, maybe): the board across servers shows the former, so it does not carry one
-- server's nickname into every other. Plays stored before have none: that board shows their
-- server's name, as it did.
ALTER TABLE daily_plays ADD COLUMN world_name TEXT
