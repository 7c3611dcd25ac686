//! The envelope behaviour sections (scope core): `cases`, `roundtrip`, `data_shape`,
//! `forbidden_keys`, `extension_write`, `encode_reject`, `trim`, `job_type`; one file each,
//! with what they share in [`shared`].

sections! {
    cases: Cases;
    data_shape: DataShape;
    encode_reject: EncodeReject;
    extension_write: ExtensionWrite;
    forbidden_keys: ForbiddenKeys;
    job_type: JobType;
    roundtrip: Roundtrip;
    trim: Trim;
}

pub mod shared;
