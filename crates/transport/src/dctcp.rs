//! DCTCP (docs/model.md 8; Alizadeh et al. 2010, RFC 8257, Linux `tcp_dctcp.c`).
//!
//! The sender keeps alpha, an EWMA (gain g) of the fraction of acknowledged bytes that carried
//! an ECN echo over one observation window (about one RTT), and cuts cwnd by alpha / 2 at most
//! once per window of data. Loss handling is the engine's NewReno (RFC 8257 3.5). The receiver
//! side (one-bit CE state machine with delayed ACKs) is in `receiver.rs`.

use crate::cc::{AckSample, CcState, CongestionControl};
use crate::config::keys::DUPTHRESH;
use crate::config::tcp_keys_and;
use crate::config::{EcnMode, Profile, SlowStartIncrease, TcpConfig};
use crate::error::{ParamError, TransportError};
use crate::newreno::NewReno;
use crate::transport::{
    open_single_path, Configured, Connection, ConnectionSpec, Transport, TransportKind,
};
use htsim_core::endpoint::Spawn;
use htsim_core::params::{KindSpec, ParamKind, ParamSpec};
use std::sync::Arc;

/// DCTCP (docs/model.md 8): TCP whose data is ECN-capable (retransmissions included, Linux
/// practice) with the DCTCP controller. Delayed ACKs stay as configured (off by default, the
/// MMPTCP model's setting; 8 proposes m = 2 with 40 ms for DCTCP/XMP reproductions).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpTransport {
    /// Parameters of every connection.
    pub config: TcpConfig,
    /// DCTCP's own parameters.
    pub dctcp: DctcpConfig,
}

impl DctcpTransport {
    /// DCTCP with `profile`'s TCP parameters and ECT on all data.
    pub fn new(profile: Profile) -> Self {
        let mut config = TcpConfig::for_profile(profile);
        config.ecn = EcnMode {
            ect_data: true,
            ect_retransmits: true,
            cwr: false,
        };
        DctcpTransport {
            config,
            dctcp: DctcpConfig::default(),
        }
    }
}

impl Transport for DctcpTransport {
    fn name(&self) -> &str {
        "dctcp"
    }
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        self.dctcp.validate()?;
        let cc = Dctcp::new(self.dctcp, self.config.ss_increase);
        open_single_path(spawner, conn, &self.config, Box::new(cc))
    }
}

/// `dctcp` in scenarios: TCP's keys ([`TcpConfig::from_params`]; data stays ECN-capable) and
/// `g`.
pub const KIND: TransportKind = TransportKind {
    spec: KindSpec {
        name: "dctcp",
        doc: "DCTCP (docs/model.md 8)",
        params: tcp_keys_and![
            DUPTHRESH,
            ParamSpec::new(
                "g",
                ParamKind::Float { min: 0.0, max: 1.0 },
                Some("0.0625"),
                "gain of the marked-fraction estimate, above 0",
            ),
        ],
    },
    new: |p| Box::new(DctcpTransport::new(p)),
    configure: |params| {
        let tcp = TcpConfig::from_params(params)?;
        let mut t = DctcpTransport::new(tcp.profile);
        t.config = TcpConfig {
            ecn: t.config.ecn,
            ..tcp.clone()
        };
        t.dctcp.g = params.float("g").unwrap_or(t.dctcp.g);
        if t.dctcp.g <= 0.0 {
            return Err(ParamError::new(
                "g",
                format!(
                    "a gain of {} never moves alpha from its initial {}, so every marked \
                     window is cut by half: expected a number above 0 and at most 1 (1/16 = \
                     0.0625 in the DCTCP paper)",
                    t.dctcp.g, t.dctcp.initial_alpha
                ),
            ));
        }
        t.dctcp
            .validate()
            .map_err(|e| ParamError::new("", format!("dctcp: {e}")))?;
        Ok(Configured {
            transport: Arc::new(t),
            tcp,
        })
    },
};

/// DCTCP parameters (docs/model.md 8, 11).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpConfig {
    /// EWMA gain g (1/16).
    pub g: f64,
    /// Initial alpha (1.0, Linux `dctcp_alpha_on_init`; **\[PROPOSED\]**).
    pub initial_alpha: f64,
    /// Smallest window after an ECN cut, in segments (2; **\[PROPOSED\]**, Linux).
    pub min_cwnd_segments: u32,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
            min_cwnd_segments: 2,
        }
    }
}

impl DctcpConfig {
    /// Checks 0 < g <= 1, 0 <= alpha <= 1 and a minimum window of at least one segment.
    pub fn validate(&self) -> Result<(), TransportError> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(TransportError::InvalidConfig(
                "DCTCP g must be in (0, 1]".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.initial_alpha) {
            return Err(TransportError::InvalidConfig(
                "DCTCP initial alpha must be in [0, 1]".into(),
            ));
        }
        if self.min_cwnd_segments == 0 {
            return Err(TransportError::InvalidConfig(
                "DCTCP minimum cwnd must be at least 1 segment".into(),
            ));
        }
        Ok(())
    }
}

/// The DCTCP controller of one subflow.
#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    config: DctcpConfig,
    slow_start: SlowStartIncrease,
    alpha: f64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// End of the current observation window; `None` until the first ACK (then snd_nxt).
    window_end: Option<u64>,
    ecn_recover: u64,
    cuts: u64,
}

impl Dctcp {
    /// A DCTCP controller growing like NewReno with `slow_start` when not cutting.
    pub fn new(config: DctcpConfig, slow_start: SlowStartIncrease) -> Self {
        Dctcp {
            config,
            slow_start,
            alpha: config.initial_alpha,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: None,
            ecn_recover: 0,
            cuts: 0,
        }
    }

    /// The current alpha (fraction of marked bytes, smoothed).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Number of ECN window reductions so far.
    pub fn cuts(&self) -> u64 {
        self.cuts
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) -> bool {
        // The observation window starts at the first ACK, at snd_nxt (docs/model.md 8: "window_end
        // (initial snd_nxt)").
        let window_end = *self.window_end.get_or_insert(state.snd_nxt);
        let newly = if ack.newly_acked == 0 && ack.duplicate {
            state.mss // Linux counts a duplicate ACK as one MSS delivered
        } else {
            ack.newly_acked
        };
        self.bytes_acked += newly;
        if ack.ece {
            self.bytes_marked += newly;
        }
        // Alpha is updated before the reduction (RFC 8257 3.3).
        if state.snd_una > window_end {
            let f = self.bytes_marked as f64 / self.bytes_acked.max(1) as f64;
            self.alpha = (1.0 - self.config.g) * self.alpha + self.config.g * f;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = Some(state.snd_nxt);
        }
        if ack.ece && !state.in_recovery && state.snd_una >= self.ecn_recover {
            let floor = self.config.min_cwnd_segments as u64 * state.mss;
            let cut = (state.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
            state.cwnd = cut.max(floor);
            state.ssthresh = state.cwnd;
            self.ecn_recover = state.snd_nxt;
            self.cuts += 1;
            return true;
        }
        false
    }

    fn increase(&mut self, state: &mut CcState, ack: &AckSample) {
        NewReno::grow(self.slow_start, state, ack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use htsim_core::params::{ParamValue, Params};
    use htsim_core::SimTime;

    #[test]
    fn a_gain_of_zero_is_an_error_at_g() {
        let mut params = Params::default();
        params.set("g", ParamValue::Float(0.0));
        let e = (KIND.configure)(&params).err().unwrap();
        assert_eq!(e.key, "g");
        assert!(
            e.message.starts_with("a gain of 0 never moves alpha"),
            "{e:?}"
        );
        params.set("g", ParamValue::Float(1.0));
        assert!((KIND.configure)(&params).is_ok());
    }

    fn st(cwnd: u64, una: u64, nxt: u64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 1 << 40,
            mss: 1000,
            snd_una: una,
            snd_nxt: nxt,
            snd_max: nxt,
            in_recovery: false,
            srtt: SimTime::ZERO,
            subflow: 0,
        }
    }

    fn ack(before: u64, newly: u64, ece: bool) -> AckSample {
        AckSample {
            ack: before + newly,
            snd_una_before: before,
            newly_acked: newly,
            duplicate: false,
            ece,
            cwr: false,
        }
    }

    #[test]
    fn cuts_once_per_window_by_alpha_over_two() {
        let mut d = Dctcp::new(DctcpConfig::default(), SlowStartIncrease::PerAck);
        // First ACK opens the window [.., 10_001); it is marked: cut by alpha/2 = 1/2.
        let mut s = st(10_000, 1001, 10_001);
        assert!(d.on_ack(&mut s, &ack(1, 1000, true)));
        assert_eq!((s.cwnd, s.ssthresh), (5000, 5000));
        // Another marked ACK in the same window: no second cut.
        let mut s2 = st(5000, 2001, 11_001);
        assert!(!d.on_ack(&mut s2, &ack(1001, 1000, true)));
        assert_eq!(s2.cwnd, 5000);
        assert_eq!(d.cuts(), 1);
    }

    #[test]
    fn alpha_decays_without_marks() {
        let mut d = Dctcp::new(DctcpConfig::default(), SlowStartIncrease::PerAck);
        let mut una = 1;
        for _ in 0..40 {
            // One ACK per window, each closing the previous window.
            let mut s = st(10_000, una + 1000, una + 1000);
            d.on_ack(&mut s, &ack(una, 1000, false));
            una += 1000;
        }
        // 39 window ends without marks: alpha = (15/16)^39.
        let expect = (15.0f64 / 16.0).powi(39);
        assert!((d.alpha() - expect).abs() < 1e-9, "{}", d.alpha());
    }
}
