-- Appletters rules editions (as ../sqlite/013_appletters_edition.sql): every word game stored
-- before them is marked edition 1, so its move log still replays as it was played. Options are
-- JSON text; jsonb rewrites their spacing, which json.loads does not mind.
UPDATE games
SET options = jsonb_set(options::jsonb, '{edition}', '1')::text
WHERE kind IN ('appletters', 'applescore', 'appleturnover')
