//! `report`: several ports' `run --format json` results as one self-contained HTML page.

use std::path::PathBuf;
use std::process::ExitCode;

use toolnexus_harness::outcome::model::RunReport;
use toolnexus_harness::reporting::coverage;
use toolnexus_harness::reporting::html;

use super::fail;

/// The arguments of `report`.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// JSON result files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to write the page.
    #[arg(short, long)]
    output: PathBuf,
    /// A `coverage --format json` file: adds the SPEC clause coverage section.
    #[arg(long)]
    coverage: Option<PathBuf>,
}

/// Reads the reports (and the coverage file) and writes the page to `--output`.
pub fn run(args: ReportArgs) -> ExitCode {
    let ReportArgs {
        files,
        output,
        coverage,
    } = args;
    let coverage = match coverage
        .as_deref()
        .map(|f| {
            std::fs::read_to_string(f)
                .map_err(|e| e.to_string())
                .and_then(|t| {
                    serde_json::from_str::<coverage::CoverageReport>(&t).map_err(|e| e.to_string())
                })
                .map_err(|e| format!("{}: not a coverage report: {e}", f.display()))
        })
        .transpose()
    {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let mut reports = Vec::new();
    for file in &files {
        let parsed = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<RunReport>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(r) => reports.push(r),
            Err(e) => return fail(&format!("{}: not a run report: {e}", file.display())),
        }
    }
    match std::fs::write(
        &output,
        html::render_with_coverage(&reports, coverage.as_ref()),
    ) {
        Ok(()) => {
            println!("wrote {} ({} ports)", output.display(), reports.len());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!("cannot write {}: {e}", output.display())),
    }
}
