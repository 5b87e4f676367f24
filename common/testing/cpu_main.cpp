int run_catch_session(int argc, char** argv);

int main(int argc, char** argv) { return run_catch_session(argc, argv); }
