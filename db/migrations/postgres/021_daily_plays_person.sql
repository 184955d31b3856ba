-- /forget-me in a direct message erases a person's daily plays in every server, the markers
-- an earlier /forget-me kept of a day now over among them (the person may have no other row
-- in that server): this finds the servers holding their plays without reading every server's.
CREATE INDEX daily_plays_person ON daily_plays (user_id)
