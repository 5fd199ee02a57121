// Package prices turns a recorded run's token counts into a cost when the
// recording carries tokens but no cost: the case the seeds describe as "when
// the model has a known rate".
//
// The rates come from a price table in LiteLLM's format
// (model_prices_and_context_window.json: a model name mapped to an object
// whose input_cost_per_token and output_cost_per_token are US dollars per
// token), the table most tools read. A dated copy is embedded
// (litellm/, with its source and licence) so a run never downloads one;
// `mcptest run --prices FILE` reads another, for example LiteLLM's current
// file. Every rate is read as the decimal it is written as and every cost
// is computed exactly on rationals, then rounded half up to a whole
// millionth of a dollar (the envelope's cost_micros), so the same table and
// tokens always give the same cost.
package prices
