-- netsweep results store (PRAGMA user_version = 16; the ladder is in lib/sql/store_schema.c).
-- The database is the interface between the runner (writes) and the report (reads):
-- anything a report shows must be derivable from these tables and views.
-- Applied by lib/sql/store_schema.c inside one transaction; later versions add
-- migration blocks there, keyed on user_version. Times are ISO-8601 UTC text,
-- rates are bits/s, sizes bytes, durations seconds, prices US dollars per hour.
-- The views are the public interface: schemas/views.md documents each column, and
-- tests/integration/contracts.sh holds them to it (a view change updates that file).

PRAGMA foreign_keys = ON;

-- One invocation of `netsweep run` (resumed runs keep their id).
CREATE TABLE IF NOT EXISTS runs (
	id               INTEGER PRIMARY KEY,
	matrix_name      TEXT NOT NULL,
	matrix_description TEXT,
	matrix_path      TEXT,
	matrix_text      TEXT NOT NULL,            -- the file exactly as read
	matrix_hash      TEXT NOT NULL,            -- hex digest of matrix_text; resume key
	label            TEXT,
	started_at       TEXT NOT NULL,
	finished_at      TEXT,
	netsweep_version TEXT NOT NULL,
	runner_host      TEXT,
	order_mode       TEXT NOT NULL DEFAULT 'as-written'
	                 CHECK (order_mode IN ('as-written', 'interleaved', 'shuffled')),
	seed             INTEGER,                  -- shuffle seed, recorded so the order can be replayed
	repeats          INTEGER NOT NULL DEFAULT 1 CHECK (repeats >= 1),
	status           TEXT NOT NULL DEFAULT 'running'
	                 CHECK (status IN ('running', 'done', 'failed', 'interrupted')),
	warnings         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(warnings)) -- JSON array of strings
	-- version 3 adds uuid TEXT UNIQUE (set by a trigger on insert): the run's identity when
	-- databases are merged (`netsweep db merge`); see lib/sql/store_schema.c
	-- version 13 adds overrides TEXT NOT NULL DEFAULT '[]': a JSON array of the command
	-- line's overrides of the matrix ("set repeats=1", "only pair=a"; run --set, --only)
);
CREATE INDEX IF NOT EXISTS runs_by_matrix ON runs(matrix_name, started_at);

-- The case each pair of a run is ranked on per dollar (the matrix's rank-by attribute):
-- KEY=VALUE[,KEY=VALUE] over the cases table's columns, or "best". No row = best case per
-- pair. Version 8; v_cost_ranking applies it.
CREATE TABLE IF NOT EXISTS run_rank (
	run_id           INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	rank_by          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_hash ON runs(matrix_hash, started_at);

-- An endpoint pair of a run: the client (this host or a named one) and the agent.
CREATE TABLE IF NOT EXISTS endpoints (
	id               INTEGER PRIMARY KEY,
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	name             TEXT NOT NULL,
	instance_type    TEXT,                     -- declared in the matrix (the instance-type axis)
	region           TEXT,
	client_host      TEXT,                     -- NULL = the runner's host
	agent_addr       TEXT NOT NULL,            -- host:port
	expected_driver  TEXT,
	price_basis      TEXT NOT NULL DEFAULT 'pair' CHECK (price_basis IN ('pair', 'sender')),
	link_bps         INTEGER,                  -- declared link speed for wire-rate references
	client_info      TEXT CHECK (client_info IS NULL OR json_valid(client_info)), -- hostinfo JSON
	agent_info       TEXT CHECK (agent_info IS NULL OR json_valid(agent_info)),   -- hostinfo JSON
	UNIQUE (run_id, name)
	-- version 25 adds zone TEXT: 'same' or 'cross', the pair's two nodes in one zone or in
	-- two (pairs a matrix's <kubernetes> found, from topology.kubernetes.io/zone); NULL =
	-- not known (a written pair)
	-- version 30 adds client_zone, client_region, agent_zone, agent_region TEXT (each end's
	-- placement: the matrix's, else the end's instance metadata, Kubernetes topology labels
	-- or the lab's; NULL = not known) and relation TEXT NOT NULL DEFAULT 'unknown':
	-- same-zone, cross-zone, cross-region, internet or unknown (the matrix's relation, else
	-- derived from the ends by lib/cost.h's cost_relation); zone stays, 'same' for same-zone
	-- and 'cross' for cross-zone or cross-region
);

-- A pair that ran in `netsweep lab` (version 6): emulated instances, not real ones. emulation
-- is the lab's JSON for the pair: {"lab": "netns", "scale": 0.01, "scale_text": "1/100",
-- "source": "catalog" or "--rate", "goodput_bps", "peak_goodput_bps", "credit_s", "tbf": {...}}
-- (every rate already times the scale). v_results shows emulated and lab_scale per result.
CREATE TABLE IF NOT EXISTS endpoint_emulation (
	endpoint_id      INTEGER PRIMARY KEY REFERENCES endpoints(id) ON DELETE CASCADE,
	emulation        TEXT NOT NULL CHECK (json_valid(emulation))
);

-- A pair's two ends by name and zone (version 28): the pairs a matrix's <mesh> made, each
-- from one of its hosts (client_name, whose agent sends) to another (agent_name), with the
-- zones their zone= attributes name (NULL: not written). The heatmaps (v_mesh_cells) and
-- v_pair_ends read it.
CREATE TABLE IF NOT EXISTS endpoint_ends (
	endpoint_id      INTEGER PRIMARY KEY REFERENCES endpoints(id) ON DELETE CASCADE,
	mesh             TEXT NOT NULL,
	client_name      TEXT NOT NULL,
	agent_name       TEXT NOT NULL,
	client_zone      TEXT,
	agent_zone       TEXT
);

-- One expanded case of a run's matrix. case_key is derived from the parameters only, so the
-- same case has the same key across runs and nights (used for baselines and trends).
CREATE TABLE IF NOT EXISTS cases (
	id               INTEGER PRIMARY KEY,
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	endpoint_id      INTEGER NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
	case_key         TEXT NOT NULL,
	ordinal          INTEGER NOT NULL,         -- position in the expanded (unshuffled) list
	protocol         TEXT NOT NULL CHECK (protocol IN ('tcp', 'udp', 'quic')),
	streams          INTEGER NOT NULL CHECK (streams >= 1),
	threads          INTEGER NOT NULL DEFAULT 0,   -- 0 = automatic
	length           INTEGER NOT NULL DEFAULT 0,   -- 0 = protocol default
	rate_bps         INTEGER NOT NULL DEFAULT 0,   -- 0 = unlimited
	fq_rate_bps      INTEGER NOT NULL DEFAULT 0,   -- 0 = none
	direction        TEXT NOT NULL CHECK (direction IN ('forward', 'reverse', 'bidir')),
	duration_s       REAL NOT NULL CHECK (duration_s > 0),
	omit_s           REAL NOT NULL DEFAULT 0,
	affinity         TEXT NOT NULL DEFAULT 'none', -- policy (none, irq, spread) or a CPU list
	window           INTEGER NOT NULL DEFAULT 0,
	mss              INTEGER NOT NULL DEFAULT 0,
	nodelay          INTEGER NOT NULL DEFAULT 0,
	congestion       TEXT,
	gso              INTEGER NOT NULL DEFAULT 0,
	params           TEXT NOT NULL CHECK (json_valid(params)), -- every parameter, as JSON
	UNIQUE (run_id, case_key)
);
CREATE INDEX IF NOT EXISTS cases_by_key ON cases(case_key);
CREATE INDEX IF NOT EXISTS cases_by_endpoint ON cases(endpoint_id);

-- One row per case per repeat, written in the same transaction as its samples.
-- "fwd_" figures are the requested direction (forward: client sends; reverse: agent sends);
-- "ret_" figures are the return direction of a bidir test (NULL otherwise).
-- The headline throughput is the receiver's goodput: fwd_rcv_bps.
CREATE TABLE IF NOT EXISTS results (
	id               INTEGER PRIMARY KEY,
	case_id          INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
	repeat           INTEGER NOT NULL CHECK (repeat >= 0),
	started_at       TEXT NOT NULL,
	finished_at      TEXT NOT NULL,
	status           TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
	error            TEXT,
	warnings         TEXT,
	duration_s       REAL,
	gso_active       INTEGER NOT NULL DEFAULT 0,
	fwd_snd_bytes    INTEGER, fwd_snd_bps REAL, fwd_snd_packets INTEGER, fwd_snd_pps REAL,
	fwd_snd_cpu      REAL,
	fwd_rcv_bytes    INTEGER, fwd_rcv_bps REAL, fwd_rcv_packets INTEGER, fwd_rcv_pps REAL,
	fwd_rcv_cpu      REAL,
	fwd_retransmits  INTEGER, fwd_rtt_ms REAL, fwd_cwnd_bytes INTEGER, -- version 27 adds
	                                           -- fwd_rtt_min_ms REAL: the least RTT seen
	fwd_lost         INTEGER, fwd_lost_percent REAL, fwd_out_of_order INTEGER,
	fwd_duplicates   INTEGER, fwd_jitter_ms REAL, fwd_kernel_drops INTEGER,
	ret_snd_bps      REAL, ret_rcv_bps REAL, ret_snd_pps REAL, ret_rcv_pps REAL,
	ret_retransmits  INTEGER, ret_lost_percent REAL,
	probe_json       TEXT CHECK (probe_json IS NULL OR json_valid(probe_json)), -- full probe --json object
	UNIQUE (case_id, repeat)
);
CREATE INDEX IF NOT EXISTS results_by_case ON results(case_id);

-- Per-interval series of a result: stream = -1 is the sum over streams. A long-run case
-- (matrix axis until = sustained) keeps the sums only: its first minute as measured (in
-- 100 ms buckets when the interval is finer), then one row per 10 s (runner/sweep/compact.h),
-- about 110 KB an hour with its probe_json at the default 1 s interval.
CREATE TABLE IF NOT EXISTS samples (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	direction        TEXT NOT NULL DEFAULT 'fwd' CHECK (direction IN ('fwd', 'ret')),
	stream           INTEGER NOT NULL,
	t_start          REAL NOT NULL,
	t_end            REAL NOT NULL,
	bytes            INTEGER NOT NULL,
	bps              REAL NOT NULL,
	packets          INTEGER,
	retransmits      INTEGER,
	cwnd_bytes       INTEGER,
	rtt_ms           REAL,
	lost             INTEGER,
	jitter_ms        REAL,
	PRIMARY KEY (result_id, direction, stream, t_start)
) WITHOUT ROWID;

-- The phases of a result's direction when its receiver's interval series stepped down and
-- stayed down (version 7): a burst on credits, then the sustained rate — the figure to buy on.
-- No row: no step was found. Version 7 also adds results.fwd_socket_drops INTEGER: UDP
-- datagrams the test's own receiving sockets dropped (SO_RXQ_OVFL), as against the host-wide
-- fwd_kernel_drops.
CREATE TABLE IF NOT EXISTS result_phases (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	direction        TEXT NOT NULL CHECK (direction IN ('fwd', 'ret')),
	burst_bps        REAL NOT NULL,            -- mean receive rate before the step
	burst_s          REAL NOT NULL,            -- from the start of the measured time to the knee
	sustained_bps    REAL NOT NULL,            -- mean receive rate after it
	PRIMARY KEY (result_id, direction)
) WITHOUT ROWID;

-- Each end's network interface over a result (version 9): the deltas of a documented set of
-- its driver's own counters (ethtool statistics, read before the data flows and after it
-- stopped; schemas/probe-result.md names them). No row: that end's counters were not read
-- (loopback, a driver without statistics). Version 9 also adds results.shaped_by_provider
-- INTEGER: 1 when an allowance counter moved on either end — the cloud provider held packets
-- back, so the figure is the provider's shaping, not the instance's capacity; 0 when none
-- did; NULL for results from before version 9. Packets, bytes and drops are the interface's
-- own statistics (IFLA_STATS64, what `ip -s link` shows; runner/host/niccount.h), the driver's
-- only for what they add. Version 18 adds rx_bytes and tx_bytes INTEGER: the bytes it moved
-- (0: its own statistics could not be read; NULL for results from before version 18).
CREATE TABLE IF NOT EXISTS result_nics (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	side             TEXT NOT NULL CHECK (side IN ('client', 'agent')),
	ifname           TEXT NOT NULL,            -- the interface the route to the other end takes
	allowance_counters INTEGER NOT NULL,       -- *_allowance_exceeded counters it has (ENA: 5)
	bw_in_allowance_exceeded     INTEGER NOT NULL,  -- ENA: held back, inbound bandwidth
	bw_out_allowance_exceeded    INTEGER NOT NULL,  -- outbound bandwidth
	pps_allowance_exceeded       INTEGER NOT NULL,  -- packets per second
	conntrack_allowance_exceeded INTEGER NOT NULL,  -- tracked connections
	linklocal_allowance_exceeded INTEGER NOT NULL,  -- link-local traffic (DNS, IMDS, NTP)
	drops            INTEGER NOT NULL,         -- the driver's drop and error counters, summed
	rx_packets       INTEGER NOT NULL,         -- its packet counters (0: it has none)
	tx_packets       INTEGER NOT NULL,
	PRIMARY KEY (result_id, side)
) WITHOUT ROWID;

-- What limited each direction of a result (version 16), as the probe judged it from both
-- ends' own measurements (schemas/probe-result.md, "limit"). A sender_limited result offered
-- less than asked by more than 3 %: its figure is the sender's, not the path's, and the
-- report marks it and leaves it out of --fail-on-regression. Rows exist for results stored
-- since version 16 only.
CREATE TABLE IF NOT EXISTS result_limits (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	direction        TEXT NOT NULL CHECK (direction IN ('fwd', 'ret')),
	asked_bps        REAL NOT NULL,            -- the pacing rate asked (-b), 0 = unpaced
	offered_bps      REAL NOT NULL,            -- what the sender offered (sender bits/s)
	shortfall_pct    REAL NOT NULL,            -- (asked - offered) / asked x 100, 0 unpaced
	sender_limited   INTEGER NOT NULL,         -- 1: short by more than 3 %
	cause            TEXT,                     -- sender_cpu, pacer_late, sndbuf_full, steal,
	                                           -- unknown; NULL when not sender_limited
	limited_by       TEXT,                     -- network, sender_cpu, receiver_cpu, steal,
	                                           -- pacing, window, max_rate; NULL = nothing stood out
	snd_thread_cpu   REAL NOT NULL,            -- busiest sender engine thread, % of one CPU
	rcv_thread_cpu   REAL NOT NULL,            -- busiest receiver engine thread
	snd_steal_pct    REAL NOT NULL,            -- CPU steal of the sender's host over the test
	rcv_steal_pct    REAL NOT NULL,            -- ... of the receiver's host
	snd_blocked_pct  REAL NOT NULL,            -- sender time waiting on full socket buffers
	pace_lost_pct    REAL NOT NULL,            -- paced sender time its pacer dropped (late)
	PRIMARY KEY (result_id, direction)
) WITHOUT ROWID;

-- A request/response result's latency (version 17): the client's merged histogram of the
-- measured time, its figures in microseconds, and the histogram itself in lib/lathist.h's
-- text ("LH1 n=... b=STEP:COUNT,...", schemas/probe-result.md), so that percentiles of
-- several results can be read from their merged counts rather than averaged.
CREATE TABLE IF NOT EXISTS result_latency (
	result_id        INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,
	test             TEXT NOT NULL,            -- 'tcp_rr', 'udp_rr' or 'tcp_crr'
	request          INTEGER NOT NULL,         -- bytes per request
	response         INTEGER NOT NULL,         -- bytes per response
	rate             REAL NOT NULL,            -- transactions/s asked for, 0 = back to back
	transactions     INTEGER NOT NULL,
	transactions_per_second REAL NOT NULL,
	lost             INTEGER NOT NULL,         -- UDP requests unanswered within 200 ms
	min_us REAL NOT NULL, mean_us REAL NOT NULL, p50_us REAL NOT NULL, p90_us REAL NOT NULL,
	p99_us REAL NOT NULL, p999_us REAL NOT NULL, max_us REAL NOT NULL,
	relative_error   REAL NOT NULL,            -- of the percentiles (0.0078125)
	client_cpu       INTEGER NOT NULL,         -- the requester thread's last CPU, -1 unknown
	histogram        TEXT NOT NULL
);
-- Version 20 adds agent_cpu INTEGER: the CPU the agent's first answerer thread last ran on
-- (-1 unknown; NULL for results from before version 20).

-- A throughput result's latency probe (version 19, latency_probe axis, probe
-- --latency-probe): the request/response flow of one stream on its own connection, timed
-- idle (alone, just before the load) and loaded (beside the load's streams, after omit);
-- one row per phase.
CREATE TABLE IF NOT EXISTS result_latency_load (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	phase            TEXT NOT NULL CHECK (phase IN ('idle', 'loaded')),
	test             TEXT NOT NULL,            -- 'tcp_rr' or 'udp_rr'
	request          INTEGER NOT NULL,         -- bytes per request
	response         INTEGER NOT NULL,         -- bytes per response
	rate             REAL NOT NULL,            -- transactions/s asked for
	duration_s       REAL NOT NULL,            -- the phase's measured time
	transactions     INTEGER NOT NULL,
	transactions_per_second REAL NOT NULL,
	lost             INTEGER NOT NULL,         -- UDP requests unanswered within 200 ms
	min_us REAL NOT NULL, mean_us REAL NOT NULL, p50_us REAL NOT NULL, p90_us REAL NOT NULL,
	p99_us REAL NOT NULL, p999_us REAL NOT NULL, max_us REAL NOT NULL,
	PRIMARY KEY (result_id, phase)
) WITHOUT ROWID;

-- A runner's claim on a (case, repeat) while it measures it, so that two runners continuing one
-- run never measure the same case at once (version 5). Deleted when the result is stored; a
-- claim past expires_at, or of a runner no longer alive on this host, is free to take.
CREATE TABLE IF NOT EXISTS case_leases (
	case_id          INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
	repeat           INTEGER NOT NULL,
	holder           TEXT NOT NULL,            -- "host pid" of the runner
	expires_at       TEXT NOT NULL,
	PRIMARY KEY (case_id, repeat)
);

-- The instance catalog as it stood when the run started (prices change; a run keeps its own).
CREATE TABLE IF NOT EXISTS run_instance_types (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	instance_type    TEXT NOT NULL,
	vcpus            INTEGER,
	memory_gib       REAL,
	network_label    TEXT,                     -- "Moderate", "High", "Up to 25 Gigabit", ...
	network_gbps     REAL,                     -- advertised (burst where AWS states one)
	baseline_gbps    REAL,
	enhanced_networking TEXT,                  -- none, vif, ixgbevf, ena
	PRIMARY KEY (run_id, instance_type)
	-- version 12 adds provider TEXT (aws, azure, gcp, scaleway, hetzner, ...; NULL = the
	-- catalog did not say) and network_up_to INTEGER (1: network_gbps is an "up to" burst,
	-- baseline_gbps what the type sustains); version 21 adds family TEXT (the provider's
	-- family of the type as the catalog stated it: m5, Dsv5, n2-standard, PRO2, cx; NULL =
	-- none, the type answers to its exact name only)
);

CREATE TABLE IF NOT EXISTS run_prices (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	instance_type    TEXT NOT NULL,
	region           TEXT NOT NULL,
	usd_per_hour     REAL NOT NULL CHECK (usd_per_hour > 0),
	as_of            TEXT NOT NULL,            -- date the price was quoted
	source           TEXT NOT NULL,            -- where it came from
	PRIMARY KEY (run_id, instance_type, region)
);

-- Every price the catalog held for the run's pairs (version 12): each instance type and
-- region in every pricing model it was quoted in, in its own currency. run_prices above keeps
-- the on-demand US-dollar price the views below rank on; the report ranks on the run's
-- pricing (run_pricing) from this table and never mixes currencies without an exchange rate.
CREATE TABLE IF NOT EXISTS run_price_quotes (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	instance_type    TEXT NOT NULL,
	region           TEXT NOT NULL,
	pricing          TEXT NOT NULL CHECK (pricing IN ('on-demand', 'spot', 'reserved')),
	term             TEXT NOT NULL DEFAULT '', -- reserved: '1yr', '3yr'; '' otherwise
	currency         TEXT NOT NULL,            -- ISO 4217: USD, EUR, ...
	per_hour         REAL NOT NULL CHECK (per_hour > 0), -- one instance, in currency
	price_window     TEXT,                     -- spot: what the figure summarises
	as_of            TEXT NOT NULL,
	source           TEXT NOT NULL,
	PRIMARY KEY (run_id, instance_type, region, pricing, term)
);

-- The traffic a server of an instance type includes a month in a region (version 30; the
-- catalog's included-gb-month, Hetzner style), in decimal GB, before the transfer rule's
-- tiers apply. No row = none.
CREATE TABLE IF NOT EXISTS run_included_transfer (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	instance_type    TEXT NOT NULL,
	region           TEXT NOT NULL,
	included_gb_month REAL NOT NULL CHECK (included_gb_month > 0),
	PRIMARY KEY (run_id, instance_type, region)
);

-- The exchange rates the catalog gave when the run started (version 15): usd US dollars per
-- unit of currency. The report converts that currency's prices with them (report --fx
-- overrides a rate) and says so; without one, currencies are ranked apart.
CREATE TABLE IF NOT EXISTS run_fx (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	currency         TEXT NOT NULL,
	usd              REAL NOT NULL CHECK (usd > 0),
	as_of            TEXT NOT NULL,
	source           TEXT NOT NULL,
	PRIMARY KEY (run_id, currency)
);

-- The transfer rules the catalog gave when the run started (version 30): per provider,
-- region and relation (cross-region: per peer region, '' = any other), who is billed per GB
-- moved (sender, receiver or both: each billed side pays per_gb), in monthly cumulative volume
-- tiers: a JSON array [{"up_to_gb": 100, "per_gb": 0}, ..., {"per_gb": 0.05}] ascending, the
-- last without up_to_gb. v_cost_total prices every result's traffic with them.
CREATE TABLE IF NOT EXISTS run_transfer_prices (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	provider         TEXT NOT NULL,
	region           TEXT NOT NULL,
	relation         TEXT NOT NULL
	                 CHECK (relation IN ('same-zone', 'cross-zone', 'cross-region', 'internet')),
	peer_region      TEXT NOT NULL DEFAULT '',
	billed           TEXT NOT NULL CHECK (billed IN ('sender', 'receiver', 'both')),
	currency         TEXT NOT NULL,
	tiers            TEXT NOT NULL CHECK (json_valid(tiers) AND json_array_length(tiers) >= 1),
	as_of            TEXT NOT NULL,
	source           TEXT NOT NULL,
	PRIMARY KEY (run_id, provider, region, relation, peer_region)
);

-- The run's monthly transfer volume (version 30): the matrix's monthly-transfer, in decimal GB,
-- at which v_cost_total reads the tiers. No row = each result's rate for a 730-hour month.
CREATE TABLE IF NOT EXISTS run_transfer_volume (
	run_id           INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	monthly_gb       REAL NOT NULL CHECK (monthly_gb > 0)
);

-- The pricing model a run ranks on: the matrix's pricing attribute (version 12). No row =
-- on-demand; `report --pricing` overrides it.
CREATE TABLE IF NOT EXISTS run_pricing (
	run_id           INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	pricing          TEXT NOT NULL CHECK (pricing IN ('on-demand', 'spot', 'reserved')),
	term             TEXT NOT NULL DEFAULT ''
);

-- Provisioning hooks (matrix <setup>/<teardown>): one row per hook run, pair NULL for the
-- run's own. attempt counts the runner invocations of the run (1, then one more per
-- --resume); a setup without a finished teardown of the same attempt is what --resume tears
-- down. output is the JSON object a setup printed; times bound the instances' billed time.
CREATE TABLE IF NOT EXISTS hooks (
	run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	pair             TEXT NOT NULL DEFAULT '',  -- '' = the run's own hook
	kind             TEXT NOT NULL CHECK (kind IN ('setup', 'teardown')),
	attempt          INTEGER NOT NULL CHECK (attempt >= 1),
	command          TEXT NOT NULL,
	started_at       TEXT NOT NULL,
	finished_at      TEXT,                     -- NULL: still running, or the runner was killed
	status           TEXT NOT NULL DEFAULT 'running'
	                 CHECK (status IN ('running', 'ok', 'failed', 'timeout')),
	exit_code        INTEGER,                  -- NULL: killed by a signal or never ended
	error            TEXT,
	stdout           TEXT,
	stderr           TEXT,
	output           TEXT CHECK (output IS NULL OR json_valid(output)),
	PRIMARY KEY (run_id, pair, kind, attempt)
);

-- A case run as a zero-loss rate search (the matrix's <search>): the whole search as
-- schemas/search-result.md; its result row holds the confirming trial at the first goal's
-- lower bound (or the first, maximum-load trial when no goal was met). Version 4.
CREATE TABLE IF NOT EXISTS searches (
	result_id        INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,
	search_json      TEXT NOT NULL CHECK (json_valid(search_json))
);

-- One row per search and loss goal: the answer (lower_pps; NULL = not met), the bracket and
-- what was forwarded at the answer, beside the case it belongs to.
CREATE VIEW IF NOT EXISTS v_search_goals AS
SELECT s.result_id, c.run_id, c.id AS case_id, c.case_key, r.repeat, e.name AS endpoint,
       e.instance_type, e.link_bps, c.length, c.streams, c.direction,
       json_extract(s.search_json, '$.mrr_pps') AS mrr_pps,
       json_extract(s.search_json, '$.max_load_pps') AS max_load_pps,
       CAST(g.key AS INTEGER) AS goal,
       json_extract(g.value, '$.loss_ratio') AS loss_ratio,
       json_extract(g.value, '$.exceed_ratio') AS exceed_ratio,
       json_extract(g.value, '$.met') AS met,
       json_extract(g.value, '$.converged') AS converged,
       json_extract(g.value, '$.lower_pps') AS lower_pps,
       json_extract(g.value, '$.upper_pps') AS upper_pps,
       json_extract(g.value, '$.conditional_pps') AS conditional_pps,
       json_extract(g.value, '$.trials') AS trials,
       json_extract(g.value, '$.note') AS note,
       -- version 14: the bracket's top was a load the sender could not offer; then the most it
       -- offered there and the rate the goal is known to hold up to (schemas/search-result.md)
       coalesce(json_extract(g.value, '$.sender_limited'), 0) AS sender_limited,
       json_extract(g.value, '$.sender_max_pps') AS sender_max_pps,
       json_extract(g.value, '$.at_least_pps') AS at_least_pps
FROM searches s
JOIN results r ON r.id = s.result_id
JOIN cases c ON c.id = r.case_id
JOIN endpoints e ON e.id = c.endpoint_id,
     json_each(s.search_json, '$.goals') g;

-- Every trial of every search.
CREATE VIEW IF NOT EXISTS v_search_trials AS
SELECT s.result_id, CAST(t.key AS INTEGER) AS trial,
       json_extract(t.value, '$.phase') AS phase, json_extract(t.value, '$.goal') AS goal,
       json_extract(t.value, '$.load_pps') AS load_pps,
       json_extract(t.value, '$.duration_s') AS duration_s,
       json_extract(t.value, '$.sent') AS sent, json_extract(t.value, '$.received') AS received,
       json_extract(t.value, '$.loss_ratio') AS loss_ratio,
       -- version 14: what the sender offered, and whether it fell short of the load
       json_extract(t.value, '$.offered_pps') AS offered_pps,
       coalesce(json_extract(t.value, '$.sender_short'), 0) AS sender_short
FROM searches s, json_each(s.search_json, '$.trials') t;

-- Billed seconds of each endpoint: its own setup's start to its teardown's end, summed over
-- attempts; the run's hooks when the pair has none; the run's wall time without hooks.
CREATE VIEW IF NOT EXISTS v_endpoint_billed AS
WITH spans AS (
	SELECT s.run_id, s.pair,
	       sum((julianday(coalesce(t.finished_at, s.finished_at, s.started_at)) -
	            julianday(s.started_at)) * 86400.0) AS seconds
	FROM hooks s
	LEFT JOIN hooks t ON t.run_id = s.run_id AND t.pair = s.pair AND t.attempt = s.attempt
	                 AND t.kind = 'teardown'
	WHERE s.kind = 'setup'
	GROUP BY s.run_id, s.pair
)
SELECT e.id AS endpoint_id, e.run_id, e.name AS endpoint,
       coalesce(p.seconds, r.seconds,
                (julianday(coalesce(ru.finished_at, ru.started_at)) - julianday(ru.started_at))
                * 86400.0) AS billed_s,
       CASE WHEN p.seconds IS NOT NULL THEN 'pair hooks' WHEN r.seconds IS NOT NULL
            THEN 'run hooks' ELSE 'run wall time' END AS billed_basis
FROM endpoints e
JOIN runs ru ON ru.id = e.run_id
LEFT JOIN spans p ON p.run_id = e.run_id AND p.pair = e.name
LEFT JOIN spans r ON r.run_id = e.run_id AND r.pair = '';

-- Billed cost of each run: every priced endpoint's billed seconds at its hourly price
-- (v_run_cost beside it counts the measured seconds of successful results only).
CREATE VIEW IF NOT EXISTS v_run_billed AS
SELECT b.run_id, sum(ep.usd_per_hour * b.billed_s / 3600.0) AS usd, sum(b.billed_s) AS billed_s,
       sum(ep.usd_per_hour IS NULL) AS endpoints_without_price
FROM v_endpoint_billed b
JOIN v_endpoint_prices ep ON ep.endpoint_id = b.endpoint_id
GROUP BY b.run_id;

-- Every result with its case parameters and endpoint: the view for ad-hoc queries.
CREATE VIEW IF NOT EXISTS v_results AS
SELECT r.id AS result_id, c.run_id, ru.matrix_name, ru.label, ru.started_at AS run_started_at,
       c.id AS case_id, c.case_key, c.ordinal, r.repeat,
       e.id AS endpoint_id, e.name AS endpoint, e.instance_type, e.region, e.price_basis, e.link_bps,
       json_extract(e.agent_info, '$.interface.driver') AS agent_driver,
       json_extract(e.agent_info, '$.interface.driver_family') AS agent_driver_family,
       json_extract(e.client_info, '$.interface.driver') AS client_driver,
       c.protocol, c.streams, c.threads, c.length, c.rate_bps, c.fq_rate_bps, c.direction,
       c.duration_s, c.omit_s, c.affinity, c.window, c.mss, c.nodelay, c.congestion, c.gso,
       r.status, r.error, r.warnings, r.started_at, r.finished_at, r.duration_s AS measured_s,
       r.gso_active,
       r.fwd_rcv_bps AS goodput_bps, r.fwd_rcv_bps / 1e6 AS goodput_mbps,
       r.fwd_snd_bps, r.fwd_rcv_bps, r.fwd_snd_pps, r.fwd_rcv_pps,
       r.fwd_snd_bytes, r.fwd_rcv_bytes, r.fwd_snd_packets, r.fwd_rcv_packets,
       r.fwd_snd_cpu, r.fwd_rcv_cpu, r.fwd_retransmits, r.fwd_rtt_ms, r.fwd_rtt_min_ms,
       r.fwd_cwnd_bytes,
       r.fwd_lost, r.fwd_lost_percent, r.fwd_out_of_order, r.fwd_duplicates, r.fwd_jitter_ms,
       r.fwd_kernel_drops, r.ret_snd_bps, r.ret_rcv_bps, r.ret_snd_pps, r.ret_rcv_pps,
       r.ret_retransmits, r.ret_lost_percent,
       em.endpoint_id IS NOT NULL AS emulated, json_extract(em.emulation, '$.scale') AS lab_scale,
       -- version 16, the forward direction's result_limits (NULL for older results)
       lim.sender_limited, lim.asked_bps, lim.offered_bps, lim.shortfall_pct,
       lim.cause AS limit_cause, lim.limited_by, lim.snd_thread_cpu, lim.rcv_thread_cpu,
       lim.snd_steal_pct, lim.rcv_steal_pct,
       e.zone, -- version 25
       -- version 30: each end's placement and the pair's relation
       e.client_zone, e.client_region, e.agent_zone, e.agent_region, e.relation
FROM results r
JOIN cases c ON c.id = r.case_id
JOIN endpoints e ON e.id = c.endpoint_id
JOIN runs ru ON ru.id = c.run_id
LEFT JOIN endpoint_emulation em ON em.endpoint_id = e.id
LEFT JOIN result_limits lim ON lim.result_id = r.id AND lim.direction = 'fwd';

-- Hourly price of each endpoint pair in its run: the pair (client + agent, both of the
-- declared instance type) or the sender alone, as the matrix chose. NULL = no price known
-- (reported as missing, never guessed).
CREATE VIEW IF NOT EXISTS v_endpoint_prices AS
SELECT e.id AS endpoint_id, e.run_id, e.name AS endpoint, e.instance_type, e.region,
       e.price_basis, p.usd_per_hour AS unit_usd_per_hour, p.as_of, p.source,
       p.usd_per_hour * (CASE e.price_basis WHEN 'pair' THEN 2 ELSE 1 END) AS usd_per_hour
FROM endpoints e
LEFT JOIN run_prices p
       ON p.run_id = e.run_id AND p.instance_type = e.instance_type AND p.region = e.region;

-- Every quote of each endpoint pair (version 12): per_hour is the pair's or the sender's price
-- (price basis) in currency; ranked = 1 for the run's pricing model (run_pricing, default
-- on-demand). Currencies are never converted here: the report's --fx does that, and says so.
CREATE VIEW IF NOT EXISTS v_endpoint_quotes AS
SELECT e.id AS endpoint_id, e.run_id, e.name AS endpoint, e.instance_type, e.region,
       e.price_basis, q.pricing, q.term, q.currency, q.per_hour AS unit_per_hour,
       q.per_hour * (CASE e.price_basis WHEN 'pair' THEN 2 ELSE 1 END) AS per_hour,
       q.price_window, q.as_of, q.source,
       (coalesce(rp.pricing, 'on-demand') = q.pricing AND coalesce(rp.term, '') = q.term)
         AS ranked
FROM endpoints e
JOIN run_price_quotes q
       ON q.run_id = e.run_id AND q.instance_type = e.instance_type AND q.region = e.region
LEFT JOIN run_pricing rp ON rp.run_id = e.run_id;

-- Cost figures of every successful result.
CREATE VIEW IF NOT EXISTS v_cost AS
SELECT v.*, ep.usd_per_hour, ep.unit_usd_per_hour, ep.as_of AS price_as_of,
       ep.source AS price_source,
       v.goodput_mbps / ep.usd_per_hour AS mbps_per_usd_hour,
       ep.usd_per_hour / (v.goodput_bps / 1e9) AS usd_per_gbps_hour,
       ep.usd_per_hour * (v.duration_s + v.omit_s) / 3600.0 AS case_cost_usd
FROM v_results v
JOIN v_endpoint_prices ep ON ep.endpoint_id = v.endpoint_id
WHERE v.status = 'ok';

-- Median receiver goodput of each case over its successful repeats (the middle value, or the
-- mean of the two middle ones: the report's median).
CREATE VIEW IF NOT EXISTS v_case_median AS
-- version 24: one case's median is computed from that case's results alone, so that a query
-- of one run's cases (WHERE c.run_id = ?) reads that run's results, not a year's
SELECT c.id AS case_id,
       (SELECT avg(g) FROM (SELECT r.fwd_rcv_bps AS g,
               row_number() OVER (ORDER BY r.fwd_rcv_bps) AS rn, count(*) OVER () AS n
               FROM results r WHERE r.case_id = c.id AND r.status = 'ok'
               AND r.fwd_rcv_bps IS NOT NULL)
        WHERE rn IN ((n + 1) / 2, (n + 2) / 2)) AS median_bps,
       (SELECT count(*) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'
        AND r.fwd_rcv_bps IS NOT NULL) AS repeats_ok
FROM cases c
WHERE EXISTS (SELECT 1 FROM results r WHERE r.case_id = c.id AND r.status = 'ok'
              AND r.fwd_rcv_bps IS NOT NULL);

-- The run's rank-by rule (run_rank) split into KEY=VALUE terms; "best" has none.
CREATE VIEW IF NOT EXISTS v_rank_terms AS
WITH RECURSIVE split(run_id, rest, item) AS (
	SELECT run_id, rank_by || ',', NULL FROM run_rank WHERE rank_by <> 'best'
	UNION ALL
	SELECT run_id, substr(rest, instr(rest, ',') + 1), substr(rest, 1, instr(rest, ',') - 1)
	FROM split WHERE rest <> ''
)
SELECT run_id, replace(trim(substr(item, 1, instr(item, '=') - 1)), '-', '_') AS key,
       trim(substr(item, instr(item, '=') + 1)) AS value
FROM split WHERE item IS NOT NULL AND item <> '';

-- The price each endpoint pair of a run is ranked on (version 22), as the report prices it:
-- its quote of the run's pricing model (run_pricing; on-demand without one) for the pair or
-- the sender (price basis), converted to US dollars at the run's exchange rate for its
-- currency (run_fx) when the catalog gave one, else in its own currency. A run from before the
-- quotes (version 12) has its on-demand US-dollar price only. No row = no price of that model.
CREATE VIEW IF NOT EXISTS v_endpoint_ranked_price AS
SELECT q.endpoint_id, q.run_id, q.pricing, q.term,
       CASE WHEN fx.usd IS NOT NULL THEN 'USD' ELSE q.currency END AS currency,
       q.per_hour * coalesce(fx.usd, 1) AS per_hour,
       q.currency AS quoted_currency, q.per_hour AS quoted_per_hour, fx.usd AS fx_usd,
       q.as_of, q.source
FROM v_endpoint_quotes q
LEFT JOIN run_fx fx ON fx.run_id = q.run_id AND fx.currency = q.currency AND q.currency <> 'USD'
WHERE q.ranked
UNION ALL
SELECT ep.endpoint_id, ep.run_id, 'on-demand', '', 'USD', ep.usd_per_hour, 'USD',
       ep.usd_per_hour, NULL, ep.as_of, ep.source
FROM v_endpoint_prices ep
WHERE ep.usd_per_hour IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM v_endpoint_quotes q WHERE q.run_id = ep.run_id)
  AND coalesce((SELECT rp.pricing FROM run_pricing rp WHERE rp.run_id = ep.run_id),
               'on-demand') = 'on-demand';

-- The per-dollar ranking, one definition with the report's: each pair's ranked case is its
-- highest-median case among those matching every term of the run's rank-by rule (all its
-- cases when there is none), its median in Mbit/s per hour of the price it is ranked on
-- (v_endpoint_ranked_price: the run's pricing model, every currency, converted at the run's
-- exchange rate where there is one); pairs without such a price are left out. rank: 1 = most
-- per dollar (per unit of currency), each currency ranked on its own as the report does.
-- A case whose results stepped down (result_phases) counts its mean sustained rate instead
-- of its median (version 10, column sustained), as the report does. Version 11 adds back
-- the names of before version 8 as deprecated aliases: mean_mbps and mean_mbps_per_usd_hour
-- (of mbps and mbps_per_usd_hour) and results (schemas/views.md documents every column).
-- Version 22 ranks every pricing model and currency (before: on-demand US dollars only).
-- Version 26: an "up to" type with a sustained rate measured ranks on such cases only.
CREATE VIEW IF NOT EXISTS v_cost_ranking AS
WITH sustained AS ( -- version 10: a case shaped on credits is bought on its rate after the burst
	SELECT r.case_id, avg(p.sustained_bps) AS bps
	FROM result_phases p JOIN results r ON r.id = p.result_id
	WHERE r.status = 'ok' AND p.direction = 'fwd' GROUP BY r.case_id
),
eligible AS (
	SELECT c.id AS case_id, c.run_id, c.endpoint_id, c.case_key,
	       coalesce(s.bps, m.median_bps) AS median_bps, s.bps IS NOT NULL AS sustained,
	       CASE WHEN EXISTS (SELECT 1 FROM cases q WHERE q.run_id = c.run_id
	                         AND q.protocol = 'quic') THEN c.protocol END AS split
	FROM cases c JOIN v_case_median m ON m.case_id = c.id
	LEFT JOIN sustained s ON s.case_id = c.id
	WHERE NOT EXISTS (
		SELECT 1 FROM v_rank_terms t WHERE t.run_id = c.run_id AND coalesce(CASE t.key
			WHEN 'protocol' THEN c.protocol WHEN 'direction' THEN c.direction
			WHEN 'streams' THEN CAST(c.streams AS TEXT)
			WHEN 'threads' THEN CAST(c.threads AS TEXT)
			WHEN 'length' THEN CAST(c.length AS TEXT)
			WHEN 'rate_bps' THEN CAST(c.rate_bps AS TEXT)
			WHEN 'fq_rate_bps' THEN CAST(c.fq_rate_bps AS TEXT)
			WHEN 'affinity' THEN c.affinity WHEN 'window' THEN CAST(c.window AS TEXT)
			WHEN 'mss' THEN CAST(c.mss AS TEXT) WHEN 'nodelay' THEN CAST(c.nodelay AS TEXT)
			WHEN 'congestion' THEN c.congestion WHEN 'gso' THEN CAST(c.gso AS TEXT) END,
			'') <> t.value)
),
bought AS ( -- version 26: its cases without one ran on credit, inside the burst window
	SELECT e.* FROM eligible e
	WHERE e.sustained
	   OR NOT EXISTS (SELECT 1 FROM eligible x WHERE x.endpoint_id = e.endpoint_id AND x.sustained)
	   OR NOT EXISTS (SELECT 1 FROM endpoints en JOIN run_instance_types t
	                  ON t.run_id = en.run_id AND t.instance_type = en.instance_type
	                  WHERE en.id = e.endpoint_id AND t.network_up_to = 1
	                  AND t.baseline_gbps > 0 AND t.network_gbps > 0)
),
picked AS (
	-- version 24: partitioned by run too (an endpoint is one run's), so that a filter on
	-- run_id reaches every window and a run's ranking reads that run's rows only
	-- version 27: a run with QUIC cases ranks each pair once per protocol (the report's
	-- TCP and QUIC side by side)
	SELECT e.*, row_number() OVER (PARTITION BY e.run_id, e.endpoint_id, e.split
	                               ORDER BY e.median_bps DESC, e.case_id) AS k
	FROM bought e
),
priced AS (
	SELECT p.*, e.name AS endpoint, e.instance_type, e.region, e.price_basis, pr.pricing,
	       pr.term, pr.currency, pr.per_hour, p.median_bps / 1e6 / pr.per_hour AS mbps_per_hour
	FROM picked p JOIN endpoints e ON e.id = p.endpoint_id
	JOIN v_endpoint_ranked_price pr ON pr.endpoint_id = p.endpoint_id
	WHERE p.k = 1
)
SELECT p.run_id, p.endpoint_id, p.endpoint, p.instance_type, p.region, p.price_basis,
       CASE p.currency WHEN 'USD' THEN p.per_hour END AS usd_per_hour,
       p.case_id, p.case_key, p.median_bps / 1e6 AS mbps,
       CASE p.currency WHEN 'USD' THEN p.mbps_per_hour END AS mbps_per_usd_hour,
       -- ties within one part in 10^9 share a rank, as the report's (printed alike)
       rank() OVER (PARTITION BY p.run_id, p.currency
                    ORDER BY CAST(printf('%.9e', p.mbps_per_hour) AS REAL) DESC) AS rank,
       p.sustained, -- 1: mbps is the sustained rate of a case shaped on credits
       -- version 11: the columns of before version 8 again, deprecated, gone in netsweep 0.3
       p.median_bps / 1e6 AS mean_mbps,
       CASE p.currency WHEN 'USD' THEN p.mbps_per_hour END AS mean_mbps_per_usd_hour,
       (SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id
        WHERE c.endpoint_id = p.endpoint_id AND r.status = 'ok') AS results,
       -- version 22: the price ranked on, in its currency
       p.pricing, p.term, p.currency, p.per_hour, p.mbps_per_hour
FROM priced p;

-- A ranked "up to" type on burst credit (version 26; schemas/views.md; report/analyze/burst.h
-- for the page): its window measured (result_phases) or documented (AWS: 5 to 60 minutes).
CREATE VIEW IF NOT EXISTS v_burst_window AS
WITH measured AS (
	SELECT c.endpoint_id, avg(p.burst_s) AS burst_s FROM result_phases p JOIN results r ON
	r.id = p.result_id JOIN cases c ON c.id = r.case_id WHERE r.status = 'ok' AND p.direction =
	'fwd' GROUP BY c.endpoint_id
), typed AS (SELECT k.*, c.duration_s + c.omit_s AS case_s, m.burst_s,
	       t.baseline_gbps * coalesce(json_extract(em.emulation, '$.scale'), 1) * 1000 AS base,
	       t.network_gbps * coalesce(json_extract(em.emulation, '$.scale'), 1) * 1000 AS peak
	FROM v_cost_ranking k JOIN cases c ON c.id = k.case_id
	JOIN run_instance_types t ON t.run_id = k.run_id AND t.instance_type = k.instance_type
	LEFT JOIN endpoint_emulation em ON em.endpoint_id = k.endpoint_id
	LEFT JOIN measured m ON m.endpoint_id = k.endpoint_id
	WHERE t.network_up_to = 1 AND t.baseline_gbps > 0 AND t.network_gbps > 0)
SELECT run_id, endpoint_id, endpoint, instance_type, case_id, case_key, mbps, sustained, case_s,
       base AS baseline_mbps, peak AS burst_mbps, CASE WHEN burst_s IS NOT NULL THEN 'measured'
       ELSE 'documented' END AS window_from, burst_s AS window_s, coalesce(burst_s, 300)
       AS window_min_s, coalesce(burst_s, 3600) AS window_max_s, (NOT sustained AND case_s <
       coalesce(burst_s, 3600) AND mbps > base * 1.05) AS inside_burst FROM typed;

-- The per-dollar answer with transfer (version 30): every successful result at its rate (the
-- sustained one where the result stepped down, else its goodput), the traffic it moves priced
-- by the run's transfer rule for the pair's relation (provider of the type, the sender's
-- region; cross-region: the receiver's region, else any), billed sides, tiers read at the
-- month's volume (run_transfer_volume, else the rate for 730 hours) after a billed server's
-- included allowance — lib/cost.h's cost_total_figures, held equal by
-- tests/unit/test_cost_transfer.c. Same-zone without a rule is free; another relation
-- without one has transfer_per_hour NULL (and so total_per_hour). The instance price is the
-- ranked one (v_endpoint_ranked_price); a rule in another currency is converted at the
-- run's exchange rate when the price is in US dollars, else it stays unknown. A lab pair's
-- traffic is priced at bps / lab_scale: what the instances it emulates would move.
CREATE VIEW IF NOT EXISTS v_cost_total AS
WITH res AS (
	SELECT r.id AS result_id, c.id AS case_id, c.run_id, c.endpoint_id, c.protocol,
	       c.streams, c.direction,
	       coalesce((SELECT avg(p.sustained_bps) FROM result_phases p
	                 WHERE p.result_id = r.id AND p.direction = 'fwd'), r.fwd_rcv_bps) AS bps
	FROM results r JOIN cases c ON c.id = r.case_id
	WHERE r.status = 'ok' AND r.fwd_rcv_bps IS NOT NULL
),
base AS (
	SELECT res.*, e.name AS pair, e.instance_type, it.provider, e.relation,
	       CASE WHEN res.direction = 'reverse' THEN coalesce(e.agent_region, e.region)
	            ELSE coalesce(e.client_region, e.region) END AS region,
	       CASE WHEN res.direction = 'reverse' THEN coalesce(e.client_region, e.region)
	            ELSE coalesce(e.agent_region, e.region) END AS peer_region,
	       pr.currency AS price_currency, pr.per_hour AS instance_per_hour,
	       (SELECT q.included_gb_month FROM run_included_transfer q WHERE q.run_id = e.run_id
	        AND q.instance_type = e.instance_type AND q.region = e.region) AS included_gb,
	       json_extract(em.emulation, '$.scale') AS lab_scale,
	       res.bps / coalesce(json_extract(em.emulation, '$.scale'), 1) * 3600.0 / 8e9
	         AS gb_per_hour,
	       coalesce(v.monthly_gb, res.bps / coalesce(json_extract(em.emulation, '$.scale'), 1)
	                * 3600.0 / 8e9 * 730.0) AS monthly_gb
	FROM res JOIN endpoints e ON e.id = res.endpoint_id
	LEFT JOIN endpoint_emulation em ON em.endpoint_id = e.id
	LEFT JOIN run_instance_types it ON it.run_id = e.run_id AND it.instance_type = e.instance_type
	LEFT JOIN v_endpoint_ranked_price pr ON pr.endpoint_id = e.id
	LEFT JOIN run_transfer_volume v ON v.run_id = res.run_id
),
ruled AS (
	SELECT b.*, (SELECT t.rowid FROM run_transfer_prices t
	             WHERE t.run_id = b.run_id AND t.provider = b.provider AND t.region = b.region
	             AND t.relation = b.relation
	             AND (t.relation <> 'cross-region' OR t.peer_region IN ('', b.peer_region))
	             ORDER BY t.peer_region = '' LIMIT 1) AS rule_id
	FROM base b
),
priced AS (
	SELECT u.*, t.billed, t.currency AS rule_currency,
	       CASE WHEN t.rowid IS NULL THEN NULL
	            WHEN t.currency = coalesce(u.price_currency, t.currency) THEN 1.0
	            WHEN u.price_currency = 'USD' THEN
	                 (SELECT fx.usd FROM run_fx fx WHERE fx.run_id = u.run_id
	                  AND fx.currency = t.currency) END AS rate,
	       (SELECT sum(max(0, min(max(u.monthly_gb - coalesce(u.included_gb, 0), 0),
	                              coalesce(x.upto, 1e300)) - x.lower) * x.per_gb)
	        FROM (SELECT json_extract(j.value, '$.up_to_gb') AS upto,
	                     json_extract(j.value, '$.per_gb') AS per_gb,
	                     coalesce(lag(json_extract(j.value, '$.up_to_gb')) OVER (ORDER BY j.key),
	                              0) AS lower
	              FROM json_each(t.tiers) j) x) AS month_cost
	FROM ruled u LEFT JOIN run_transfer_prices t ON t.rowid = u.rule_id
),
figured AS (
	SELECT p.*,
	       CASE WHEN p.rule_id IS NOT NULL THEN
	                 CASE WHEN p.monthly_gb > 0 THEN (CASE p.billed WHEN 'both' THEN 2 ELSE 1 END)
	                      * p.month_cost / p.monthly_gb * p.gb_per_hour * p.rate ELSE 0 END
	            WHEN p.relation = 'same-zone' THEN 0 END AS transfer_per_hour
	FROM priced p
)
SELECT f.run_id, f.result_id, f.case_id, f.endpoint_id, f.pair, f.instance_type, f.provider,
       f.region, f.peer_region, f.relation, f.protocol, f.streams, f.direction, f.bps,
       coalesce(f.price_currency, f.rule_currency) AS currency, f.instance_per_hour,
       f.gb_per_hour, f.transfer_per_hour,
       f.instance_per_hour + f.transfer_per_hour AS total_per_hour,
       f.bps / 1e6 / f.instance_per_hour AS mbps_per_instance_hour,
       f.bps / 1e6 / (f.instance_per_hour + f.transfer_per_hour) AS mbps_per_total_hour,
       CASE WHEN f.gb_per_hour > 0 THEN f.transfer_per_hour / (f.gb_per_hour / 1000.0) END
         AS transfer_per_tb,
       CASE WHEN f.gb_per_hour > 0 THEN (f.instance_per_hour + f.transfer_per_hour)
         / (f.gb_per_hour / 1000.0) END AS total_per_tb,
       f.monthly_gb, f.billed, f.included_gb AS included_gb_month, f.lab_scale
FROM figured f;

-- Cost of each run: the duration of every successful result at its pair's price (failed
-- results are not charged). usd leaves out the ok results of pairs without a price:
-- results_without_price counts them, and when it is not 0 usd is a lower bound.
CREATE VIEW IF NOT EXISTS v_run_cost AS
SELECT c.run_id, sum(ep.usd_per_hour * (CASE WHEN json_extract(c.params, '$.until') = 'sustained'
       THEN coalesce(r.duration_s, c.duration_s) ELSE c.duration_s END + c.omit_s) / 3600.0) AS usd,
       sum(ep.usd_per_hour IS NULL) AS results_without_price
FROM results r
JOIN cases c ON c.id = r.case_id
JOIN v_endpoint_prices ep ON ep.endpoint_id = c.endpoint_id
WHERE r.status = 'ok'
GROUP BY c.run_id;

-- Theoretical wire rate for UDP cases on a link of known speed: an untagged IPv4/UDP frame
-- carries payload + 46 bytes (Ethernet header 14 + FCS 4 + IP 20 + UDP 8), at least 64,
-- and occupies 20 more on the wire (preamble 8 + inter-frame gap 12).
CREATE VIEW IF NOT EXISTS v_wire_rate AS
SELECT v.result_id, v.run_id, v.endpoint, v.length, v.link_bps,
       max(v.length + 46, 64) AS frame_bytes,
       v.link_bps / ((max(v.length + 46, 64) + 20) * 8.0) AS wire_pps,
       v.link_bps * v.length / ((max(v.length + 46, 64) + 20) * 1.0) AS wire_goodput_bps,
       v.fwd_rcv_pps, v.goodput_bps
FROM v_results v
WHERE v.protocol = 'udp' AND v.link_bps IS NOT NULL AND v.length > 0;

-- Request/response results with their case and pair (version 17).
CREATE VIEW IF NOT EXISTS v_latency AS
SELECT r.result_id, r.run_id, r.case_id, r.case_key, r.repeat, r.endpoint, r.instance_type,
       r.region, r.protocol, r.streams, r.status, l.test, l.request, l.response, l.rate,
       l.transactions, l.transactions_per_second, l.lost, l.min_us, l.mean_us, l.p50_us,
       l.p90_us, l.p99_us, l.p999_us, l.max_us, l.relative_error, l.client_cpu, l.histogram,
       -- version 20: the agent's answerer CPU, and each end's CPU load (% of one CPU)
       l.agent_cpu, r.fwd_snd_cpu AS client_cpu_percent, r.fwd_rcv_cpu AS agent_cpu_percent
FROM result_latency l
JOIN v_results r ON r.result_id = l.result_id;

-- A responsiveness result (version 26, the responsiveness axis, probe --responsiveness,
-- schemas/responsiveness.md): the result's own figures are its loaded test's; this row its
-- RPM and what it came from. Times in ms, trimmed means of the slowest 5 % dropped.
CREATE TABLE IF NOT EXISTS result_rpm (
	result_id        INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,
	rpm              REAL NOT NULL,            -- round trips per minute under working conditions
	rpm_idle         REAL NOT NULL,            -- the foreign probe's alone, before the load
	foreign_tm_ms    REAL NOT NULL,            -- TCP_RR on a connection of its own, under load
	foreign_probes   INTEGER NOT NULL,
	self_tm_ms       REAL NOT NULL,            -- the loaded connections' smoothed RTT
	self_samples     INTEGER NOT NULL,
	idle_tm_ms       REAL NOT NULL,
	idle_probes      INTEGER NOT NULL,
	connections      INTEGER NOT NULL,         -- load-generating connections
	saturated        INTEGER NOT NULL,         -- 1: the goodput saturated at that many
	goodput_bps      REAL NOT NULL
);

-- Responsiveness per pair and per dollar (version 26): one row per responsiveness result,
-- with its pair and the pair's hourly USD price (v_endpoint_prices; NULL when the run has
-- none): RPM per $/hour ranks pairs by how responsive their path stays under load per
-- dollar, beside the goodput per dollar of v_cost.
CREATE VIEW IF NOT EXISTS v_responsiveness AS
SELECT v.result_id, v.run_id, v.case_id, v.case_key, v.repeat, v.endpoint, v.instance_type,
       v.region, v.direction, v.status, r.rpm, r.rpm_idle, r.foreign_tm_ms, r.foreign_probes,
       r.self_tm_ms, r.self_samples, r.idle_tm_ms, r.idle_probes, r.connections,
       r.saturated, r.goodput_bps, ep.usd_per_hour,
       CASE WHEN ep.usd_per_hour > 0 THEN r.rpm / ep.usd_per_hour END AS rpm_per_usd_hour
FROM result_rpm r
JOIN v_results v ON v.result_id = r.result_id
LEFT JOIN v_endpoint_prices ep ON ep.endpoint_id = v.endpoint_id;

-- CPU per bit and CPU placement (version 26, issue 41): one row per result, its goodput,
-- both ends' CPU seconds per 10^9 bytes each moved in each direction (fwd: the requested
-- one, ret: a bidir test's return; the client is the forward sender; NULL for results from
-- before version 26), where each end's engine threads ran (cpu_placement "auto": the default
-- placement, "given": -A/--agent-affinity, "none": unpinned; client_cpus/agent_cpus one CPU
-- per thread in thread order, "" unpinned, bidir "fwd/ret") and the TCP receiver's path
-- (copy, skip, mmap, mmap_fallback; NULL for UDP and request/response).
CREATE VIEW IF NOT EXISTS v_cpu_per_bit AS
SELECT r.result_id, r.run_id, r.case_id, r.case_key, r.repeat, r.endpoint, r.instance_type,
       r.region, r.protocol, r.streams, r.status, r.fwd_rcv_bps, x.fwd_snd_cpu_s_per_gb,
       x.fwd_rcv_cpu_s_per_gb, r.ret_rcv_bps, x.ret_snd_cpu_s_per_gb, x.ret_rcv_cpu_s_per_gb,
       x.cpu_placement, x.client_cpus, x.agent_cpus, x.rx_path
FROM results x
JOIN v_results r ON r.result_id = x.id;

-- Latency under load beside throughput (version 19): one row per result with a latency
-- probe, its goodput, the probe's idle and loaded figures and what the load added (NULL
-- when either phase had no answered transaction).
CREATE VIEW IF NOT EXISTS v_latency_under_load AS
SELECT r.result_id, r.run_id, r.case_id, r.case_key, r.repeat, r.endpoint, r.instance_type,
       r.region, r.protocol, r.direction, r.streams, r.status, r.goodput_bps, r.goodput_mbps,
       i.test, i.request, i.response, i.rate,
       i.duration_s AS idle_s, i.transactions AS idle_transactions,
       i.transactions_per_second AS idle_tps, i.lost AS idle_lost, i.p50_us AS idle_p50_us,
       i.p90_us AS idle_p90_us, i.p99_us AS idle_p99_us, i.p999_us AS idle_p999_us,
       i.max_us AS idle_max_us,
       l.duration_s AS loaded_s, l.transactions AS loaded_transactions,
       l.transactions_per_second AS loaded_tps, l.lost AS loaded_lost,
       l.p50_us AS loaded_p50_us, l.p90_us AS loaded_p90_us, l.p99_us AS loaded_p99_us,
       l.p999_us AS loaded_p999_us, l.max_us AS loaded_max_us,
       CASE WHEN i.transactions > 0 AND l.transactions > 0 THEN l.p50_us - i.p50_us END
         AS added_p50_us,
       CASE WHEN i.transactions > 0 AND l.transactions > 0 THEN l.p99_us - i.p99_us END
         AS added_p99_us
FROM result_latency_load i
JOIN result_latency_load l ON l.result_id = i.result_id AND l.phase = 'loaded'
JOIN v_results r ON r.result_id = i.result_id
WHERE i.phase = 'idle';

-- Each end's interface over a result (version 18): result_nics with the result's run and
-- case. Over a veth, rx_packets of the receiving end is at least the datagrams received.
CREATE VIEW IF NOT EXISTS v_result_nics AS
SELECT n.result_id, c.run_id, r.case_id, r.repeat, n.side, n.ifname, n.rx_packets,
       n.tx_packets, n.rx_bytes, n.tx_bytes, n.drops, n.allowance_counters,
       n.bw_in_allowance_exceeded, n.bw_out_allowance_exceeded, n.pps_allowance_exceeded,
       n.conntrack_allowance_exceeded, n.linklocal_allowance_exceeded
FROM result_nics n
JOIN results r ON r.id = n.result_id
JOIN cases c ON c.id = r.case_id;

-- Group cases (version 23): several tests run together as one case (a matrix <group>, or
-- the clients axis on a pair), started on a common clock. The case's results row is their
-- total (figures added up, every test's streams); group_results says how they shared the
-- path, group_clients holds each test, group_samples each test's interval sums.
CREATE TABLE IF NOT EXISTS group_results (
	result_id        INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,
	kind             TEXT NOT NULL CHECK (kind IN ('incast', 'fan-out', 'clients')),
	clients          INTEGER NOT NULL CHECK (clients >= 1),
	completed        INTEGER NOT NULL,          -- tests that completed (the figures' basis)
	streams_per_client INTEGER NOT NULL,
	start_spread_ms  REAL,                      -- the latest test's start after the earliest's
	start_dispatched INTEGER NOT NULL DEFAULT 0, -- 1: client agents ran tests, all started at
	                                            -- one wall-clock second, read on their clocks
	total_bps        REAL NOT NULL,             -- receive rates of the completed tests, summed
	jain             REAL,                      -- Jain's fairness index over those rates
	min_share        REAL,                      -- the slowest test's rate over the total
	min_of_fair      REAL,                      -- ... over its fair share (total / completed)
	converge_s       REAL                       -- TCP: when the shares settled (NULL: never)
);
CREATE TABLE IF NOT EXISTS group_clients (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	client           INTEGER NOT NULL,          -- its place in the group, from 0
	name             TEXT NOT NULL,
	client_host      TEXT,                      -- the client agent that sent; NULL = the runner
	agent            TEXT NOT NULL,             -- host:port of the agent it tested
	status           TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
	error            TEXT,
	start_offset_ms  REAL,                      -- its start after the group's earliest
	rcv_bps          REAL, snd_bps REAL,        -- the requested direction's
	retransmits      INTEGER, lost_percent REAL,
	snd_cpu          REAL, rcv_cpu REAL,
	limited_by       TEXT, sender_limited INTEGER,
	probe_json       TEXT CHECK (probe_json IS NULL OR json_valid(probe_json)),
	PRIMARY KEY (result_id, client)
);
CREATE TABLE IF NOT EXISTS group_samples (
	result_id        INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	client           INTEGER NOT NULL,
	t_start          REAL NOT NULL,
	t_end            REAL NOT NULL,
	bps              REAL NOT NULL,             -- the requested direction's interval sum
	PRIMARY KEY (result_id, client, t_start)
) WITHOUT ROWID;

-- How a group case's tests shared the path (version 23): one row per group result.
CREATE VIEW IF NOT EXISTS v_group_fairness AS
SELECT r.result_id, r.run_id, r.case_id, r.case_key, r.repeat, r.endpoint, r.protocol,
       r.direction, g.streams_per_client, r.status, g.kind, g.clients, g.completed,
       g.total_bps, g.total_bps / 1e6 AS total_mbps, g.jain, g.min_share, g.min_of_fair,
       g.min_of_fair < 0.5 AS starved, g.converge_s, g.start_spread_ms, g.start_dispatched,
       r.limited_by, r.sender_limited
FROM group_results g
JOIN v_results r ON r.result_id = g.result_id;

-- Each test of a group case (version 23), with its share of the total.
CREATE VIEW IF NOT EXISTS v_group_clients AS
SELECT gc.result_id, c.run_id, r.case_id, c.case_key, r.repeat, e.name AS endpoint,
       gc.client, gc.name, gc.client_host, gc.agent, gc.status, gc.error, gc.start_offset_ms,
       gc.rcv_bps, gc.rcv_bps / 1e6 AS rcv_mbps, gc.snd_bps, gc.retransmits, gc.lost_percent,
       gc.snd_cpu, gc.rcv_cpu, gc.limited_by, gc.sender_limited,
       CASE WHEN gc.status = 'ok' AND g.total_bps > 0 THEN gc.rcv_bps / g.total_bps END AS share,
       CASE WHEN gc.status = 'ok' AND g.total_bps > 0
            THEN gc.rcv_bps * g.completed / g.total_bps END AS fair_ratio
FROM group_clients gc
JOIN group_results g ON g.result_id = gc.result_id
JOIN results r ON r.id = gc.result_id
JOIN cases c ON c.id = r.case_id
JOIN endpoints e ON e.id = c.endpoint_id;

-- Each endpoint pair's two ends by name and zone (version 28): a <mesh> pair's hosts and the
-- zones its matrix wrote (endpoint_ends), else each end's host name and availability zone as
-- its host information says (hostinfo's hostname and cloud.availability_zone; NULL when not
-- known). client_instance and agent_instance identify the instances themselves (hostinfo's
-- hostname: one per EC2 instance), which the variability views count.
CREATE VIEW IF NOT EXISTS v_pair_ends AS
SELECT e.id AS endpoint_id, e.run_id, e.name AS endpoint, n.mesh, e.instance_type, e.region,
       coalesce(n.client_name, json_extract(e.client_info, '$.hostname')) AS client_name,
       coalesce(n.agent_name, json_extract(e.agent_info, '$.hostname')) AS agent_name,
       coalesce(n.client_zone, json_extract(e.client_info, '$.cloud.availability_zone'))
         AS client_zone,
       coalesce(n.agent_zone, json_extract(e.agent_info, '$.cloud.availability_zone'))
         AS agent_zone,
       json_extract(e.client_info, '$.hostname') AS client_instance,
       json_extract(e.agent_info, '$.hostname') AS agent_instance,
       e.zone AS zone_relation
FROM endpoints e
LEFT JOIN endpoint_ends n ON n.endpoint_id = e.id;

-- The host x host heatmap's cells (version 28): one row per pair of a run, from client_name
-- to agent_name. goodput_bps is the median of its successful results' receiver goodput;
-- rtt_p50_us the mean of its results' round-trip p50 (request/response results, else the
-- latency probe's idle phase where a result has no request/response figures), rtt_p99_us
-- the highest p99 of them; loss_percent the mean of
-- its UDP results' lost datagrams (NULL for TCP), retransmits its TCP results' sum.
CREATE VIEW IF NOT EXISTS v_mesh_cells AS
WITH rtt AS (
	SELECT c.endpoint_id, l.p50_us, l.p99_us FROM result_latency l
	JOIN results r ON r.id = l.result_id JOIN cases c ON c.id = r.case_id
	WHERE r.status = 'ok'
	UNION ALL
	SELECT c.endpoint_id, l.p50_us, l.p99_us FROM result_latency_load l
	JOIN results r ON r.id = l.result_id JOIN cases c ON c.id = r.case_id
	WHERE r.status = 'ok' AND l.phase = 'idle' AND l.transactions > 0
	AND NOT EXISTS (SELECT 1 FROM result_latency x WHERE x.result_id = l.result_id))
SELECT p.run_id, p.mesh, p.endpoint_id, p.endpoint, p.client_name, p.agent_name,
       p.client_zone, p.agent_zone,
       (SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id
        WHERE c.endpoint_id = p.endpoint_id AND r.status = 'ok') AS results_ok,
       (SELECT avg(g) FROM (SELECT r.fwd_rcv_bps AS g,
               row_number() OVER (ORDER BY r.fwd_rcv_bps) AS rn, count(*) OVER () AS n
               FROM results r JOIN cases c ON c.id = r.case_id
               WHERE c.endpoint_id = p.endpoint_id AND r.status = 'ok'
               AND r.fwd_rcv_bps IS NOT NULL)
        WHERE rn IN ((n + 1) / 2, (n + 2) / 2)) AS goodput_bps,
       (SELECT avg(p50_us) FROM rtt WHERE rtt.endpoint_id = p.endpoint_id) AS rtt_p50_us,
       (SELECT max(p99_us) FROM rtt WHERE rtt.endpoint_id = p.endpoint_id) AS rtt_p99_us,
       (SELECT avg(r.fwd_lost_percent) FROM results r JOIN cases c ON c.id = r.case_id
        WHERE c.endpoint_id = p.endpoint_id AND r.status = 'ok' AND c.protocol = 'udp')
         AS loss_percent,
       (SELECT sum(r.fwd_retransmits) FROM results r JOIN cases c ON c.id = r.case_id
        WHERE c.endpoint_id = p.endpoint_id AND r.status = 'ok' AND c.protocol = 'tcp')
         AS retransmits
FROM v_pair_ends p
WHERE p.client_name IS NOT NULL AND p.agent_name IS NOT NULL;

-- The zone x zone heatmap's cells (version 28): the pairs of a run from client_zone to
-- agent_zone (both known): how many, the mean and the lowest of their goodput_bps, the mean
-- rtt_p50_us, the highest rtt_p99_us, the mean loss_percent.
CREATE VIEW IF NOT EXISTS v_mesh_zone_cells AS
SELECT run_id, client_zone, agent_zone, count(*) AS pairs, avg(goodput_bps) AS goodput_bps,
       min(goodput_bps) AS min_goodput_bps, avg(rtt_p50_us) AS rtt_p50_us,
       max(rtt_p99_us) AS rtt_p99_us, avg(loss_percent) AS loss_percent
FROM v_mesh_cells
WHERE client_zone IS NOT NULL AND agent_zone IS NOT NULL
GROUP BY run_id, client_zone, agent_zone;

-- One night of a pair's case (version 28): the case's median goodput in that run
-- (v_case_median), the instances at its ends and the UTC hour its first result started.
-- A night is a run; the same case across nights has the same case_key. case_params is the
-- case's parameters without its pair (cases.params less "pair" and "key"): the same for two
-- pairs' same case, which the per-type views and the ranking compare.
CREATE VIEW IF NOT EXISTS v_pair_nightly AS
SELECT c.run_id, ru.matrix_name, ru.label, ru.started_at AS run_started_at, e.name AS endpoint,
       e.instance_type, e.region, c.case_key, json_remove(c.params, '$.pair', '$.key')
         AS case_params, c.id AS case_id, m.median_bps, m.repeats_ok,
       json_extract(e.client_info, '$.hostname') AS client_instance,
       json_extract(e.agent_info, '$.hostname') AS agent_instance,
       CAST(strftime('%H', (SELECT min(r.started_at) FROM results r WHERE r.case_id = c.id))
            AS INTEGER) AS hour_utc
FROM cases c
JOIN v_case_median m ON m.case_id = c.id
JOIN endpoints e ON e.id = c.endpoint_id
JOIN runs ru ON ru.id = c.run_id;

-- A pair's case over its nights (version 28), per matrix: the median, p5 and p95 (nearest
-- rank) of the nightly medians, their coefficient of variation (sample standard deviation
-- over mean, %; NULL with one night), the worst night (lowest median: its run, its label or
-- start, its figure), and how many distinct agent instances served it.
CREATE VIEW IF NOT EXISTS v_pair_variability AS
WITH n AS (
	SELECT *, row_number() OVER (PARTITION BY matrix_name, endpoint, case_key
	                             ORDER BY median_bps, run_id) AS rn,
	       count(*) OVER (PARTITION BY matrix_name, endpoint, case_key) AS k
	FROM v_pair_nightly)
SELECT matrix_name, endpoint, case_key, max(case_params) AS case_params,
       max(instance_type) AS instance_type, k AS nights,
       count(DISTINCT agent_instance) AS agent_instances,
       avg(CASE WHEN rn IN ((k + 1) / 2, (k + 2) / 2) THEN median_bps END) AS median_bps,
       max(CASE WHEN rn = 1 + CAST(round(0.05 * (k - 1)) AS INTEGER) THEN median_bps END) AS p5_bps,
       max(CASE WHEN rn = 1 + CAST(round(0.95 * (k - 1)) AS INTEGER) THEN median_bps END) AS p95_bps,
       CASE WHEN k > 1 AND avg(median_bps) > 0 THEN
         100.0 * sqrt(max(0, (sum(median_bps * median_bps) - sum(median_bps) * sum(median_bps) / k)
                             / (k - 1))) / avg(median_bps) END AS cv_percent,
       max(CASE WHEN rn = 1 THEN run_id END) AS worst_run_id,
       max(CASE WHEN rn = 1 THEN coalesce(label, run_started_at) END) AS worst_night,
       min(median_bps) AS worst_bps
FROM n
GROUP BY matrix_name, endpoint, case_key;

-- An instance type's case over nights and instances (version 28): every nightly median of
-- every pair of that type (v_pair_nightly), with the same figures as v_pair_variability, how
-- many pairs and distinct instances (either end) gave them.
CREATE VIEW IF NOT EXISTS v_itype_variability AS
WITH n AS (
	SELECT *, row_number() OVER (PARTITION BY matrix_name, instance_type, case_params
	                             ORDER BY median_bps, run_id, endpoint) AS rn,
	       count(*) OVER (PARTITION BY matrix_name, instance_type, case_params) AS k
	FROM v_pair_nightly WHERE instance_type IS NOT NULL)
SELECT matrix_name, instance_type, case_params, count(DISTINCT run_id) AS nights,
       count(DISTINCT endpoint) AS pairs, k AS samples,
       (SELECT count(*) FROM (SELECT client_instance AS i FROM n x WHERE x.matrix_name = n.matrix_name
               AND x.instance_type = n.instance_type AND x.case_params = n.case_params
               AND client_instance IS NOT NULL
               UNION SELECT agent_instance FROM n x WHERE x.matrix_name = n.matrix_name
               AND x.instance_type = n.instance_type AND x.case_params = n.case_params
               AND agent_instance IS NOT NULL)) AS instances,
       avg(CASE WHEN rn IN ((k + 1) / 2, (k + 2) / 2) THEN median_bps END) AS median_bps,
       max(CASE WHEN rn = 1 + CAST(round(0.05 * (k - 1)) AS INTEGER) THEN median_bps END) AS p5_bps,
       max(CASE WHEN rn = 1 + CAST(round(0.95 * (k - 1)) AS INTEGER) THEN median_bps END) AS p95_bps,
       CASE WHEN k > 1 AND avg(median_bps) > 0 THEN
         100.0 * sqrt(max(0, (sum(median_bps * median_bps) - sum(median_bps) * sum(median_bps) / k)
                             / (k - 1))) / avg(median_bps) END AS cv_percent,
       min(median_bps) AS worst_bps
FROM n
GROUP BY matrix_name, instance_type, case_params;

-- Pairs ranked by how steady they were (version 28), beside the per-dollar ranking: per
-- matrix and case (its parameters without the pair), the pairs measured on at least two
-- nights, the lowest coefficient of variation first (rank 1 = the steadiest).
CREATE VIEW IF NOT EXISTS v_consistency_ranking AS
SELECT matrix_name, case_params, case_key, endpoint, instance_type, nights, median_bps, p5_bps,
       p95_bps, cv_percent,
       rank() OVER (PARTITION BY matrix_name, case_params ORDER BY cv_percent)
         AS consistency_rank
FROM v_pair_variability
WHERE nights >= 2 AND cv_percent IS NOT NULL;

-- A pair's case by hour of day (version 28): its nights whose first result started in that
-- UTC hour, their mean and lowest nightly median.
CREATE VIEW IF NOT EXISTS v_pair_hourly AS
SELECT matrix_name, endpoint, case_key, hour_utc, count(*) AS nights,
       avg(median_bps) AS mean_bps, min(median_bps) AS worst_bps
FROM v_pair_nightly
GROUP BY matrix_name, endpoint, case_key, hour_utc;
