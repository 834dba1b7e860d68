-- The batch append's input paths and its floor, as procedures that each
-- append BATCHES batches of N reports (one per new agent) and commit after
-- every batch, as ldp-server's group commit does with one batch:
--   run_arrays: the statement of kAppendBatch
--     (server/store/postgres/postgres_statements.h), its input unnested
--     from one row of arrays per batch, as the server binds them;
--   run_copy:   the same statement reading a staging table that binary
--     COPY filled from a file per batch (emptied after each);
--   run_split:  the same input, the ledger charge split into an UPDATE of
--     existing rows (locked in key order) and an INSERT ... ON CONFLICT DO
--     NOTHING of new ones, instead of one upsert;
--   run_floor:  the same statement without conflict handling: plain
--     inserts, what the rows alone cost.
-- Loaded by run_append_variants.sh, which prepares the arrays and files.

-- Batch b's input: N distinct tasks of N agents new to study 7, a 16-byte
-- report id and a 32-byte payload each.
CREATE OR REPLACE FUNCTION batch_input(b int, n int)
RETURNS TABLE(task_id int8, round_id int8, study_id int8, agent_id int8,
              report_id bytea, payload bytea, eps int8, cap int8,
              received_at int8, ord int8)
LANGUAGE sql STABLE AS $$
  SELECT g, 1::int8, 7::int8, g, decode(md5(g::text), 'hex'),
         decode(md5((g + 1)::text) || md5((g + 2)::text), 'hex'),
         1000000000::int8, 1000000000::int8, 0::int8, g - b::int8 * n
  FROM generate_series(b::int8 * n + 1, b::int8 * n + n) g $$;

CREATE OR REPLACE PROCEDURE run_arrays(batches int, n int) LANGUAGE plpgsql AS $$
DECLARE b int; c int8; r record;
BEGIN
FOR b IN 0..batches-1 LOOP
  SELECT * INTO r FROM arrays WHERE batch = b;
  WITH input AS (
    SELECT * FROM unnest(r.task_id, r.round_id, r.study_id, r.agent_id, r.report_id, r.payload, r.eps, r.cap, r.received_at)
      WITH ORDINALITY AS t(task_id, round_id, study_id, agent_id, report_id, payload, eps, cap, received_at, ord)),
  open_rounds AS (SELECT o.round_id FROM rounds o WHERE o.round_id = ANY(r.round_id) AND state = 1 ORDER BY o.round_id FOR SHARE SKIP LOCKED),
  ins AS (
    INSERT INTO reports(task_id, round_id, agent_id, report_id, payload, received_at, writer)
    SELECT i.task_id, i.round_id, i.agent_id, i.report_id, i.payload, i.received_at, 1 FROM input i
    WHERE i.round_id IN (SELECT o.round_id FROM open_rounds o) ORDER BY i.task_id
    ON CONFLICT (task_id) DO NOTHING RETURNING reports.task_id),
  charge AS (
    INSERT INTO ledger AS l (agent_id, study_id, spent_nanos, cap_nanos)
    SELECT i.agent_id, i.study_id, sum(i.eps), min(i.cap) FROM input i JOIN ins USING (task_id)
    GROUP BY 1, 2 HAVING sum(i.eps) <= min(i.cap) ORDER BY 1, 2
    ON CONFLICT (agent_id, study_id) DO UPDATE SET spent_nanos = l.spent_nanos + excluded.spent_nanos
      WHERE excluded.spent_nanos <= least(l.cap_nanos, excluded.cap_nanos) - l.spent_nanos
    RETURNING l.agent_id, l.study_id, l.spent_nanos)
  SELECT count(*) INTO c FROM (SELECT i.ord, i.round_id IN (SELECT o.round_id FROM open_rounds o), ins.task_id IS NOT NULL, ch.spent_nanos
    FROM input i LEFT JOIN ins ON ins.task_id = i.task_id
    LEFT JOIN charge ch ON ch.agent_id = i.agent_id AND ch.study_id = i.study_id) x;
  COMMIT;
END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE run_copy(batches int, n int, dir text) LANGUAGE plpgsql AS $$
DECLARE b int; c int8;
BEGIN
FOR b IN 0..batches-1 LOOP
  EXECUTE format('COPY staging FROM %L WITH (FORMAT binary)', dir || '/' || b || '.bin');
  WITH input AS (SELECT * FROM staging),
  open_rounds AS (SELECT o.round_id FROM rounds o WHERE o.round_id = 1 AND state = 1 ORDER BY o.round_id FOR SHARE SKIP LOCKED),
  ins AS (
    INSERT INTO reports(task_id, round_id, agent_id, report_id, payload, received_at, writer)
    SELECT i.task_id, i.round_id, i.agent_id, i.report_id, i.payload, i.received_at, 1 FROM input i
    WHERE i.round_id IN (SELECT o.round_id FROM open_rounds o) ORDER BY i.task_id
    ON CONFLICT (task_id) DO NOTHING RETURNING reports.task_id),
  charge AS (
    INSERT INTO ledger AS l (agent_id, study_id, spent_nanos, cap_nanos)
    SELECT i.agent_id, i.study_id, sum(i.eps), min(i.cap) FROM input i JOIN ins USING (task_id)
    GROUP BY 1, 2 HAVING sum(i.eps) <= min(i.cap) ORDER BY 1, 2
    ON CONFLICT (agent_id, study_id) DO UPDATE SET spent_nanos = l.spent_nanos + excluded.spent_nanos
      WHERE excluded.spent_nanos <= least(l.cap_nanos, excluded.cap_nanos) - l.spent_nanos
    RETURNING l.agent_id, l.study_id, l.spent_nanos)
  SELECT count(*) INTO c FROM (SELECT i.ord, i.round_id IN (SELECT o.round_id FROM open_rounds o), ins.task_id IS NOT NULL, ch.spent_nanos
    FROM input i LEFT JOIN ins ON ins.task_id = i.task_id
    LEFT JOIN charge ch ON ch.agent_id = i.agent_id AND ch.study_id = i.study_id) x;
  TRUNCATE staging;
  COMMIT;
END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE run_floor(batches int, n int) LANGUAGE plpgsql AS $$
DECLARE b int; c int8; r record;
BEGIN
FOR b IN 0..batches-1 LOOP
  SELECT * INTO r FROM arrays WHERE batch = b;
  WITH input AS (
    SELECT * FROM unnest(r.task_id, r.round_id, r.study_id, r.agent_id, r.report_id, r.payload, r.eps, r.cap, r.received_at)
      WITH ORDINALITY AS t(task_id, round_id, study_id, agent_id, report_id, payload, eps, cap, received_at, ord)),
  open_rounds AS (SELECT o.round_id FROM rounds o WHERE o.round_id = ANY(r.round_id) AND state = 1 ORDER BY o.round_id FOR SHARE SKIP LOCKED),
  ins AS (
    INSERT INTO reports(task_id, round_id, agent_id, report_id, payload, received_at, writer)
    SELECT i.task_id, i.round_id, i.agent_id, i.report_id, i.payload, i.received_at, 1 FROM input i
    WHERE i.round_id IN (SELECT o.round_id FROM open_rounds o) ORDER BY i.task_id
    RETURNING reports.task_id),
  charge AS (
    INSERT INTO ledger AS l (agent_id, study_id, spent_nanos, cap_nanos)
    SELECT i.agent_id, i.study_id, sum(i.eps), min(i.cap) FROM input i JOIN ins USING (task_id)
    GROUP BY 1, 2 HAVING sum(i.eps) <= min(i.cap) ORDER BY 1, 2
    RETURNING l.agent_id, l.study_id, l.spent_nanos)
  SELECT count(*) INTO c FROM (SELECT i.ord, i.round_id IN (SELECT o.round_id FROM open_rounds o), ins.task_id IS NOT NULL, ch.spent_nanos
    FROM input i LEFT JOIN ins ON ins.task_id = i.task_id
    LEFT JOIN charge ch ON ch.agent_id = i.agent_id AND ch.study_id = i.study_id) x;
  COMMIT;
END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE run_split(batches int, n int) LANGUAGE plpgsql AS $$
DECLARE b int; c int8; r record;
BEGIN
FOR b IN 0..batches-1 LOOP
  SELECT * INTO r FROM arrays WHERE batch = b;
  WITH input AS (
    SELECT * FROM unnest(r.task_id, r.round_id, r.study_id, r.agent_id, r.report_id, r.payload, r.eps, r.cap, r.received_at)
      WITH ORDINALITY AS t(task_id, round_id, study_id, agent_id, report_id, payload, eps, cap, received_at, ord)),
  open_rounds AS (SELECT o.round_id FROM rounds o WHERE o.round_id = ANY(r.round_id) AND state = 1 ORDER BY o.round_id FOR SHARE SKIP LOCKED),
  ins AS (
    INSERT INTO reports(task_id, round_id, agent_id, report_id, payload, received_at, writer)
    SELECT i.task_id, i.round_id, i.agent_id, i.report_id, i.payload, i.received_at, 1 FROM input i
    WHERE i.round_id IN (SELECT o.round_id FROM open_rounds o) ORDER BY i.task_id
    ON CONFLICT (task_id) DO NOTHING RETURNING reports.task_id),
  groups AS (
    SELECT i.agent_id, i.study_id, sum(i.eps) AS eps, min(i.cap) AS cap FROM input i JOIN ins USING (task_id)
    GROUP BY 1, 2 HAVING sum(i.eps) <= min(i.cap)),
  upd AS (
    UPDATE ledger l SET spent_nanos = l.spent_nanos + g.eps
    FROM (SELECT g.* FROM groups g JOIN ledger x USING (agent_id, study_id)
          ORDER BY g.agent_id, g.study_id FOR UPDATE OF x) g
    WHERE l.agent_id = g.agent_id AND l.study_id = g.study_id AND g.eps <= least(l.cap_nanos, g.cap) - l.spent_nanos
    RETURNING l.agent_id, l.study_id, l.spent_nanos),
  new AS (
    INSERT INTO ledger (agent_id, study_id, spent_nanos, cap_nanos)
    SELECT g.agent_id, g.study_id, g.eps, g.cap FROM groups g
    ORDER BY 1, 2 ON CONFLICT (agent_id, study_id) DO NOTHING
    RETURNING ledger.agent_id, ledger.study_id, ledger.spent_nanos),
  charge AS (SELECT * FROM upd UNION ALL SELECT * FROM new)
  SELECT count(*) INTO c FROM (SELECT i.ord, i.round_id IN (SELECT o.round_id FROM open_rounds o), ins.task_id IS NOT NULL, ch.spent_nanos
    FROM input i LEFT JOIN ins ON ins.task_id = i.task_id
    LEFT JOIN charge ch ON ch.agent_id = i.agent_id AND ch.study_id = i.study_id) x;
  COMMIT;
END LOOP;
END $$;
