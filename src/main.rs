fn main() -> std::process::ExitCode {
    arbiter_zebu::cli::main()
}
