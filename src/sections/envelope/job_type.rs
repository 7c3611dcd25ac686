//! Section `job_type` (scope core): only a string `job` can be the identity (ADR-0032 §6).
//!
//! Case: the shared decode-verdict case `{name, description, file, valid, reason?,
//! expect_urn?, expect_warnings?, expect_preserved?, expect_after_reencode?,
//! expect_absent_after_reencode?}`: `accepts` and decode give `valid`; for a valid case the
//! resolved URN, the warnings and the re-emit.

use crate::results::Outcome;
use crate::sdk::reference::Broken;
use crate::sections::{Block, Catch, Contract, Definition, Reader, RunCx, Version, catch};
use crate::suite::Scope;

use super::shared::DecodeCase;
use super::shared::fields::*;

/// The `job_type` section.
pub struct JobType;

impl Definition for JobType {
    const NAME: &'static str = "job_type";
    const SINCE: Version = (1, 5, 0);
    const BLOCKS: &'static [Block] = &[Block::new("cases", (1, 5, 0))];
    const SCOPE: Scope = Scope::Core;
    const CATCHES: &'static [Catch] = &[
        catch(
            Broken::NoUrnAlias,
            &["job-type-null-job-falls-back-to-urn", "job-type-blank-string-job-falls-back-silently"],
        ),
        catch(
            Broken::StringifyNonStringJob,
            &[
                "job-type-null-job-falls-back-to-urn",
                "job-type-number-job-falls-back-to-urn",
                "job-type-boolean-job-falls-back-to-urn",
                "job-type-object-job-falls-back-to-urn",
                "job-type-array-job-falls-back-to-urn",
                "job-type-no-valid-identity-rejected",
                "job-type-non-string-job-and-urn-rejected",
            ],
        ),
    ];
    const CONTRACT: &'static Contract = &Contract {
        fields: &[
            NAME,
            DESCRIPTION,
            FILE,
            VALID,
            REASON,
            EXPECT_URN,
            EXPECT_WARNINGS,
            EXPECT_PRESERVED,
            EXPECT_AFTER_REENCODE,
            EXPECT_ABSENT_AFTER_REENCODE,
        ],
        steps: STEPS,
        operations: &["decode", "accepts", "reemit"],
    };
    type Case<'s> = DecodeCase<'s>;

    fn read<'s>(r: &mut Reader<'s>) -> Option<DecodeCase<'s>> {
        let at = r.root();
        r.object(&at)?;
        DecodeCase::read(r, &at)
    }

    fn run(cx: &mut RunCx<'_>, case: &DecodeCase<'_>) -> Outcome {
        case.run(cx.sdk).into()
    }
}
