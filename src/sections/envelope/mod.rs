//! The envelope behaviour sections (scope core): `cases`, `roundtrip`, `data_shape`,
//! `forbidden_keys`, `extension_write`, `encode_reject`, `trim`, `job_type`; one file each,
//! with what they share in [`shared`].

pub mod cases;
pub mod data_shape;
pub mod encode_reject;
pub mod extension_write;
pub mod forbidden_keys;
pub mod job_type;
pub mod roundtrip;
pub mod shared;
pub mod trim;
