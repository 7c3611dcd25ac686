//! The broker-binding sections: `sqs`, `delay` (scope sqs), `asb`, `pulsar`, `kafka`,
//! `backoff`, `kafka_poison` (scope kafka), `artemis`, `rabbitmq` (scope amqp); one file each,
//! with what they share (golden maps, AMQP-typed values, the gate tables) in [`shared`].

sections! {
    artemis: Artemis;
    asb: Asb;
    backoff: Backoff;
    delay: Delay;
    kafka: Kafka;
    kafka_poison: KafkaPoison;
    pulsar: Pulsar;
    rabbitmq: Rabbitmq;
    sqs: Sqs;
}

pub mod shared;

use crate::diag::Finding;
use crate::sections::{CheckCx, Entry, Place, Reader};

use shared::{Carries, GateRow, Reconciliation, check_gate_row};

/// A case of a broker section with the three published blocks: the produce-side projection
/// (`P`, a single case), `attempts_reconciliation` rows (the native count read as `C`), and the
/// `schema_version_gate` rows.
pub enum BindingCase<'s, P, C> {
    Projection(P),
    Reconciliation(Reconciliation<C>),
    Gate(GateRow<'s>),
}

impl<'s, P, C> BindingCase<'s, P, C> {
    /// Read a case of the projection block (`attribute_projection` or `property_projection`),
    /// `attempts_reconciliation` or `schema_version_gate`.
    pub(crate) fn read(
        r: &mut Reader<'s>,
        projection: impl FnOnce(&mut Reader<'s>) -> Option<P>,
        count: impl FnOnce(&mut Reader<'s>, &Place<'s>) -> Option<C>,
    ) -> Option<Self> {
        match r.block_name() {
            "attempts_reconciliation" => Reconciliation::read(r, count).map(Self::Reconciliation),
            "schema_version_gate" => GateRow::read(r).map(Self::Gate),
            _ => projection(r).map(Self::Projection),
        }
    }

    /// The gate cross-checks over the section's gate rows.
    pub(crate) fn check(
        cx: &mut CheckCx<'_>,
        binding: &str,
        carries: Carries,
        cases: &[Entry<'s, Self>],
        out: &mut Vec<Finding>,
    ) {
        check_gates(cx, binding, carries, cases, |c| if let Self::Gate(g) = c { Some(g) } else { None }, out);
    }
}

/// The gate cross-checks over a section's gate rows.
pub(crate) fn check_gates<'s, C>(
    cx: &mut CheckCx<'_>,
    binding: &str,
    carries: Carries,
    cases: &[Entry<'s, C>],
    row: impl Fn(&C) -> Option<&GateRow<'s>>,
    out: &mut Vec<Finding>,
) {
    let mut fixture_checked = false;
    for e in cases {
        if let Some(g) = e.typed.as_ref().and_then(&row) {
            check_gate_row(cx, binding, carries, &e.case.pointer, g, &mut fixture_checked, out);
        }
    }
}
