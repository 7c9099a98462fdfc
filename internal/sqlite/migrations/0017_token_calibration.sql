-- 0017_token_calibration: what each agent's models taught the token estimator.
--
-- Prompts are costed with a per-script estimate, corrected continuously by the prompt
-- tokens each provider reports (internal/tokens.Calibration). Its state — decayed
-- statistics of the observed calls, as JSON — is kept per agent and model (provider/model
-- as configured), so a restart counts as well as the process before it. A row is small
-- and rewritten at most once a minute; deleting one only makes counts start from the
-- plain estimate again.
CREATE TABLE token_calibration (
	agent   TEXT    NOT NULL,
	model   TEXT    NOT NULL,
	state   TEXT    NOT NULL,
	updated INTEGER NOT NULL,
	PRIMARY KEY (agent, model)
) STRICT, WITHOUT ROWID;
