-- Appletters rules edition 3 (as ../sqlite/017_appletters_edition_3.sql): every word game
-- begun before it without an "edition" option is marked edition 2, so its move log still
-- replays as it was played; games marked edition 1 (013) keep their edition, and a lobby
-- starts on edition 3. Options are JSON text; jsonb rewrites their spacing, which json.loads
-- does not mind.
UPDATE games
SET options = jsonb_set(options::jsonb, '{edition}', '2')::text
WHERE kind IN ('appletters', 'applescore', 'appleturnover')
    AND status <> 'lobby'
    AND options::jsonb -> 'edition' IS NULL
