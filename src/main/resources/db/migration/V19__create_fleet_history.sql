-- What the console's fleet charts (GET /api/v1/fleet/history) need that no other table keeps over time: the queue
-- depth per tenant and tier, sampled once a minute for the whole fleet (the first pod to sample a minute writes its
-- row, the others find it there), and which pods were alive in each minute (every pod writes its own row). Both are
-- pruned past a day, so they stay a few thousand rows whatever the load.
CREATE TABLE eec_fleet_sample (
    minute      timestamptz PRIMARY KEY,
    -- {"<tenant>": {"<tier>": <items due and waiting>}}; a tenant with nothing due is absent
    queue_depth jsonb       NOT NULL
);

CREATE TABLE eec_fleet_pod (
    minute timestamptz NOT NULL,
    pod    text        NOT NULL,
    PRIMARY KEY (minute, pod)
);
