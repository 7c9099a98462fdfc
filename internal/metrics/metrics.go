// Package metrics exposes what mynah does in the Prometheus text format, on a private
// registry (nothing is registered globally): model calls and their tokens, the tasks of
// answers and how they ended, and the process's own Go and OS figures. The pipeline
// never imports it: the runtime reports through its own small interface, which Agent
// implements.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mynah-ai/mynah"
)

// Metrics is one process's metrics. Create it with New; it is safe for concurrent use.
type Metrics struct {
	reg        *prometheus.Registry
	modelCalls *prometheus.CounterVec
	modelTime  *prometheus.HistogramVec
	tokens     *prometheus.CounterVec
	tasks      *prometheus.CounterVec
}

// New returns metrics registered on a new private registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mynah_model_calls_total", Help: "Model calls by agent and result: ok, error, or cancelled (mostly a call a newer message of the chat replaced before its answer showed).",
		}, []string{"agent", "result"}),
		modelTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mynah_model_call_seconds", Help: "Duration of model calls.",
			Buckets: []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64},
		}, []string{"agent"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mynah_model_tokens_total", Help: "Tokens of model calls by agent and kind (input, output, cached).",
		}, []string{"agent", "kind"}),
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mynah_tasks_total",
			Help: "Tasks of answers (send, sticker, react, wait, schedule) by agent, kind and outcome: done, retried (a failed try), rejected (refused by Telegram for good), dropped (given up with its plan).",
		}, []string{"agent", "kind", "outcome"}),
	}
	m.reg.MustRegister(m.modelCalls, m.modelTime, m.tokens, m.tasks,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Agent returns the reporter of one agent.
func (m *Metrics) Agent(name string) Agent { return Agent{m: m, name: name} }

// Agent reports one agent's events; the zero value reports nothing.
type Agent struct {
	m    *Metrics
	name string
}

// ModelCall counts one model call, its duration and, when it succeeded, its tokens. A
// call cancelled (a newer message replaced its turn, or shutdown) counts as cancelled,
// not as an error.
func (a Agent) ModelCall(err error, u mynah.Usage, d time.Duration) {
	if a.m == nil {
		return
	}
	result := "ok"
	switch {
	case errors.Is(err, context.Canceled):
		result = "cancelled"
	case err != nil:
		result = "error"
	}
	a.m.modelCalls.WithLabelValues(a.name, result).Inc()
	a.m.modelTime.WithLabelValues(a.name).Observe(d.Seconds())
	if err == nil {
		a.m.tokens.WithLabelValues(a.name, "input").Add(float64(u.InputTokens))
		a.m.tokens.WithLabelValues(a.name, "output").Add(float64(u.OutputTokens))
		a.m.tokens.WithLabelValues(a.name, "cached").Add(float64(u.CachedTokens))
	}
}

// Task counts how one task of an answer ended (or one failed try of it).
func (a Agent) Task(kind mynah.TaskKind, outcome string) {
	if a.m == nil {
		return
	}
	a.m.tasks.WithLabelValues(a.name, string(kind), outcome).Inc()
}
