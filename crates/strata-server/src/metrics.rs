//! The service's Prometheus metrics, in the `OpenMetrics` text format.
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `strata_http_requests_total` | `method`, `route`, `status` | requests answered |
//! | `strata_http_request_duration_seconds` | `method`, `route`, `status` | latency histogram |
//! | `strata_reloads_total` | `target` (`catalogue`, `users`), `outcome` (`loaded`, `unchanged`, `unsettled`, `failed`) | reload attempts (`unsettled`: a file changed while it was read, and the reload is tried again) |
//! | `strata_catalogue_generation` | | the generation being served (0 before the first) |
//! | `strata_catalogue_blueprints` | | blueprints in that generation |
//! | `strata_reload_failing` | `target` | 1 while the latest reload of `target` failed |
//!
//! `route` is the route's pattern (`/v1/blueprints/{name}`), never the path
//! asked for, so the label set stays bounded.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// What a request is counted by.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The HTTP method.
    pub method: String,
    /// The route pattern.
    pub route: String,
    /// The status code answered.
    pub status: u16,
}

/// What a reload is counted by.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ReloadLabels {
    /// `catalogue` or `users`.
    pub target: &'static str,
    /// `loaded`, `unchanged`, `unsettled` or `failed`.
    pub outcome: &'static str,
}

/// What is reloaded.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct TargetLabels {
    /// `catalogue` or `users`.
    pub target: &'static str,
}

/// Every metric, registered once.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RequestLabels, Histogram>,
    reloads: Family<ReloadLabels, Counter>,
    failing: Family<TargetLabels, Gauge>,
    generation: Gauge,
    blueprints: Gauge,
}

impl Metrics {
    /// Registers every metric.
    #[must_use]
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        // 0.25 ms to ~8 s.
        let latency = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
        });
        let reloads = Family::<ReloadLabels, Counter>::default();
        let failing = Family::<TargetLabels, Gauge>::default();
        let generation = Gauge::default();
        let blueprints = Gauge::default();
        registry.register(
            "strata_http_requests",
            "Requests answered",
            requests.clone(),
        );
        registry.register(
            "strata_http_request_duration_seconds",
            "Time to answer a request",
            latency.clone(),
        );
        registry.register("strata_reloads", "Reload attempts", reloads.clone());
        registry.register(
            "strata_reload_failing",
            "1 while the latest reload failed",
            failing.clone(),
        );
        registry.register(
            "strata_catalogue_generation",
            "The catalogue generation being served",
            generation.clone(),
        );
        registry.register(
            "strata_catalogue_blueprints",
            "Blueprints in the generation being served",
            blueprints.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            reloads,
            failing,
            generation,
            blueprints,
        }
    }

    /// Counts one answered request.
    pub fn request(&self, labels: &RequestLabels, seconds: f64) {
        self.requests.get_or_create(labels).inc();
        self.latency.get_or_create(labels).observe(seconds);
    }

    /// Counts one reload of `target`. One that was `unsettled` decided
    /// nothing: whether the target is failing stays as it was.
    pub fn reload(&self, target: &'static str, outcome: &'static str) {
        self.reloads
            .get_or_create(&ReloadLabels { target, outcome })
            .inc();
        if outcome != "unsettled" {
            self.failing
                .get_or_create(&TargetLabels { target })
                .set(i64::from(outcome == "failed"));
        }
    }

    /// Records the generation now served.
    pub fn serving(&self, generation: u64, blueprints: usize) {
        self.generation
            .set(i64::try_from(generation).unwrap_or(i64::MAX));
        self.blueprints
            .set(i64::try_from(blueprints).unwrap_or(i64::MAX));
    }

    /// The text a scrape gets.
    #[must_use]
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}
