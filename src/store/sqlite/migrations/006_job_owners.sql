-- Job ownership: a running job names the worker that holds it and until when (a lease renewed
-- while it runs), so a job held by a dead worker is taken over by another one; a cancel asked
-- from any process reaches the holder through cancel_requested.
ALTER TABLE jobs ADD COLUMN owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
-- claims walk queued jobs in id order, overall or of one tenant, and stop at the first ready one;
-- fair scheduling counts ready and running jobs per tenant
CREATE INDEX jobs_claim_order ON jobs(status, id);
CREATE INDEX jobs_tenant_order ON jobs(tenant_id, status, id);
-- recovery looks for documents left queued/processing
CREATE INDEX documents_pending ON documents(status, updated_at);
