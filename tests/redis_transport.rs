//! The reference Redis transport used directly: several consumers on one queue lose and
//! duplicate nothing, the dead-letter records, and the refusals (ops a layout does not have, a
//! delayed release in the legacy layout, a delivery of the other layout).

mod support;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bqsuite::core::dead_letter::Reason;
use bqsuite::core::envelope;
use bqsuite::core::redis::{Delivery, Error, Keys, LayoutKind, ManualClock, Queue, RetryAfter, Role, SystemClock};
use serde_json::{Value, json};

fn connect(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

fn prefix() -> String {
    format!("bqsuite-test:{}:", uuid::Uuid::new_v4().simple())
}

fn clean(con: &mut redis::Connection, keys: &Keys) {
    let names: Vec<String> = keys.all().into_iter().map(|(_, k)| k).collect();
    redis::cmd("DEL").arg(&names).exec(con).unwrap();
}

fn len(con: &mut redis::Connection, keys: &Keys, role: Role) -> usize {
    let key = keys.get(role).unwrap();
    let cmd = if matches!(role, Role::Delayed | Role::Reserved | Role::Deadlines) { "ZCARD" } else { "LLEN" };
    redis::cmd(cmd).arg(key).query(con).unwrap()
}

fn message(i: usize) -> (String, Vec<u8>) {
    let mut data = serde_json::Map::new();
    data.insert("n".into(), json!(i));
    let env = envelope::make("urn:babel:test:concurrency", data, "orders", None, vec![]).unwrap();
    let id = env.meta.id().unwrap().to_owned();
    (id, envelope::encode(&env).unwrap().into_bytes())
}

/// Four consumers with their own connections drain one queue; every seventh message is
/// released once (delay 0) before it is acked. Every message must be acked exactly once.
fn no_loss_no_duplicates(kind: LayoutKind) {
    let Some(url) = support::redis_url() else { return };
    const MESSAGES: usize = 600;
    const CONSUMERS: usize = 4;
    let keys = Keys::new(kind, &prefix(), "orders");
    let producer = Queue::new(keys.clone(), RetryAfter::Seconds(3600), Arc::new(SystemClock));
    let mut con = connect(&url);
    let mut sent = BTreeSet::new();
    for i in 0..MESSAGES {
        let (id, body) = message(i);
        sent.insert(id);
        producer.push(&mut con, &body).unwrap();
    }
    let acked = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..CONSUMERS)
        .map(|_| {
            let (url, queue, acked, done) = (url.clone(), producer.clone(), acked.clone(), done.clone());
            std::thread::spawn(move || {
                let mut con = connect(&url);
                let mut idle = 0;
                while done.load(Ordering::SeqCst) < MESSAGES && idle < 20_000 {
                    let Some(delivery) = queue.reserve(&mut con).unwrap() else {
                        idle += 1;
                        std::thread::yield_now();
                        continue;
                    };
                    idle = 0;
                    let Delivery::Message(r) = &delivery else { panic!("poison: {delivery:?}") };
                    let n = r.envelope().data["n"].as_u64().unwrap();
                    if n % 7 == 0 && r.envelope().attempts == 0 {
                        assert!(queue.release(&mut con, r, 0.0).unwrap(), "release of a live reservation");
                        continue;
                    }
                    assert!(queue.ack(&mut con, &delivery).unwrap(), "ack of a live reservation");
                    acked.lock().unwrap().push(r.envelope().meta.id().unwrap().to_owned());
                    done.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    let unique: BTreeSet<_> = acked.iter().cloned().collect();
    assert_eq!(unique.len(), acked.len(), "{kind:?}: a message was acked twice");
    assert_eq!(unique, sent, "{kind:?}: a message was lost");
    for role in keys.kind().roles() {
        if *role != Role::Notify {
            assert_eq!(len(&mut con, &keys, *role), 0, "{kind:?}: {role} is not empty");
        }
    }
    clean(&mut con, &keys);
}

#[test]
fn concurrent_consumers_on_the_zset_layout_lose_and_duplicate_nothing() {
    no_loss_no_duplicates(LayoutKind::Zset);
}

#[test]
fn concurrent_consumers_on_the_processing_layout_lose_and_duplicate_nothing() {
    no_loss_no_duplicates(LayoutKind::Processing);
}

const BODY: &str = r#"{"job":"urn:babel:orders:created","trace_id":"7b3f9c2a-e41d-4f88-9b2a-1c0d5e6f7a8b","data":{"order_id":1},"meta":{"id":"f1e2d3c4-b5a6-4789-90ab-cdef01234567","queue":"orders","lang":"php","schema_version":1,"created_at":1749132727000},"attempts":2,"x":[]}"#;

#[test]
fn a_dead_letter_record_is_the_delivered_body_plus_the_block() {
    let Some(url) = support::redis_url() else { return };
    let mut con = connect(&url);
    for kind in LayoutKind::ALL {
        let keys = Keys::new(kind, &prefix(), "orders");
        let q = Queue::new(keys.clone(), RetryAfter::DEFAULT, Arc::new(ManualClock::new(1000.25)));
        q.push(&mut con, BODY.as_bytes()).unwrap();
        let d = q.reserve(&mut con).unwrap().unwrap();
        assert!(q.dead_letter(&mut con, &d, Reason::Failed, Some("boom")).unwrap());
        let dlq = keys.get(Role::Dlq).unwrap();
        assert!(dlq.ends_with(if kind == LayoutKind::Zset { "queues:orders:dlq" } else { ":orders:dlq" }), "{dlq}");
        let records: Vec<Vec<u8>> = redis::cmd("LRANGE").arg(&dlq).arg(0).arg(-1).query(&mut con).unwrap();
        let mut rec: Value = serde_json::from_slice(&records[0]).unwrap();
        let block = rec.as_object_mut().unwrap().shift_remove("dead_letter").unwrap();
        assert_eq!(
            block,
            json!({"reason": "failed", "error": "boom", "exception": null, "failed_at": 1_000_250,
                   "original_queue": "orders", "attempts": 2, "lang": "rust"}),
            "{kind:?}"
        );
        assert_eq!(rec, serde_json::from_str::<Value>(BODY).unwrap(), "{kind:?}: the body as delivered");
        assert!(!q.dead_letter(&mut con, &d, Reason::Failed, None).unwrap(), "{kind:?}: a second move is gated");
        assert_eq!(len(&mut con, &keys, Role::Dlq), 1);
        clean(&mut con, &keys);
    }
}

#[test]
fn a_poison_record_is_a_byte_level_splice_of_a_strict_object() {
    let Some(url) = support::redis_url() else { return };
    let mut con = connect(&url);
    let raw = r#"{"job":"urn:x","attempts":"1","n":12345678901234567890123}"#;
    let keys = Keys::new(LayoutKind::Zset, &prefix(), "orders");
    let q = Queue::new(keys.clone(), RetryAfter::DEFAULT, Arc::new(ManualClock::new(5.0)));
    q.push(&mut con, raw.as_bytes()).unwrap();
    let d = q.reserve(&mut con).unwrap().unwrap();
    let Delivery::Poison(p) = &d else { panic!("{d:?}") };
    assert!(p.error().contains("A1"), "{}", p.error());
    let reserved: Vec<Vec<u8>> =
        redis::cmd("ZRANGE").arg(keys.get(Role::Reserved).unwrap()).arg(0).arg(-1).query(&mut con).unwrap();
    assert_eq!(reserved, [raw.as_bytes()], "stored raw in :reserved");
    assert!(q.dead_letter(&mut con, &d, Reason::Failed, None).unwrap());
    let rec: Vec<u8> = redis::cmd("LINDEX").arg(keys.get(Role::Dlq).unwrap()).arg(0).query(&mut con).unwrap();
    let rec = String::from_utf8(rec).unwrap();
    assert!(rec.starts_with(&raw[..raw.len() - 1]), "{rec}");
    assert!(rec.contains(r#","dead_letter":{"reason":"poison","#), "{rec}");
    clean(&mut con, &keys);
}

#[test]
fn the_layouts_refuse_what_they_do_not_have() {
    let Some(url) = support::redis_url() else { return };
    let mut con = connect(&url);
    let clock = Arc::new(ManualClock::new(1000.0));
    let legacy = Queue::new(Keys::new(LayoutKind::Processing, &prefix(), "orders"), RetryAfter::DEFAULT, clock.clone());
    let zset = Queue::new(Keys::new(LayoutKind::Zset, &prefix(), "orders"), RetryAfter::DEFAULT, clock);
    assert!(matches!(legacy.push_delayed(&mut con, b"x", 5.0), Err(Error::NotInLayout { .. })));
    assert!(matches!(legacy.migrate(&mut con), Err(Error::NotInLayout { .. })));
    assert!(matches!(zset.sweep(&mut con), Err(Error::NotInLayout { .. })));

    legacy.push(&mut con, BODY.as_bytes()).unwrap();
    let d = legacy.reserve(&mut con).unwrap().unwrap();
    let Delivery::Message(r) = &d else { panic!("{d:?}") };
    assert!(matches!(legacy.release(&mut con, r, 5.0), Err(Error::DelayNotSupported(_))));
    assert_eq!(len(&mut con, legacy.keys(), Role::Processing), 1, "a refused release changes nothing");
    assert_eq!(len(&mut con, legacy.keys(), Role::Deadlines), 1);
    assert!(matches!(zset.ack(&mut con, &d), Err(Error::ForeignDelivery)));
    assert!(legacy.release(&mut con, r, 0.0).unwrap());
    let retry: Vec<u8> =
        redis::cmd("LINDEX").arg(legacy.keys().get(Role::Ready).unwrap()).arg(0).query(&mut con).unwrap();
    let retry: Value = serde_json::from_slice(&retry).unwrap();
    assert_eq!(retry["attempts"], 3);
    assert_eq!(retry["x"], json!([]), "the core's encoding keeps []");
    clean(&mut con, legacy.keys());
    clean(&mut con, zset.keys());
}
