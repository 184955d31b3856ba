-- Appletters rules edition 4 (as ../sqlite/030_appletters_edition_4.sql): every word game
-- begun before it without an "edition" option is marked edition 3, so its move log still
-- replays as it was played; games marked earlier keep their edition, and a lobby starts on
-- edition 4. Options are JSON text; jsonb rewrites their spacing, which json.loads does not
-- mind.
UPDATE games
SET options = jsonb_set(options::jsonb, '{edition}', '3')::text
WHERE kind IN ('appletters', 'applescore', 'appleturnover')
    AND status <> 'lobby'
    AND options::jsonb -> 'edition' IS NULL
