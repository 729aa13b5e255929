// A real `trellis router` for a test: started on a free loopback port (it prints the
// address it listens on), stopped when the object goes. The binary is $TRELLIS_BIN.
#ifndef TRELLIS_TESTS_ROUTER_H
#define TRELLIS_TESTS_ROUTER_H

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

class TestRouter {
 public:
  TestRouter() : pid_(-1) { start("tcp://127.0.0.1:0", "", "router"); }

  // A router named `name` listening on `listen` (port 0: a free one), the child of the router
  // at `parent` ("" for none: it then holds the registry).
  TestRouter(std::string const& listen, std::string const& parent, std::string const& name) : pid_(-1) {
    start(listen, parent, name);
  }

  // A router started as `trellis router ARGUMENTS...` (they must include a --listen on port 0).
  explicit TestRouter(std::vector<std::string> const& arguments) : pid_(-1) { startWith(arguments); }

  ~TestRouter() { stop(SIGTERM); }

  void startWith(std::vector<std::string> const& arguments) {
    char const* binary = std::getenv("TRELLIS_BIN");
    if (binary == 0 || *binary == 0) throw std::runtime_error("TRELLIS_BIN names no trellis binary");
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary));
    argv.push_back(const_cast<char*>("router"));
    for (size_t i = 0; i < arguments.size(); ++i) argv.push_back(const_cast<char*>(arguments[i].c_str()));
    argv.push_back(0);
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      // A test that crashes must not leave its router holding ctest's output pipe open.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      execv(binary, &argv[0]);
      std::perror("exec trellis");
      _exit(127);
    }
    close(out[1]);
    address_ = readAddress(out[0]);
    close(out[0]);
  }

  // Starts the router (again, after stop: on the same address, `address()`, for its children
  // and federates to redial).
  void start(std::string const& listen, std::string const& parent, std::string const& name) {
    std::vector<std::string> arguments;
    arguments.push_back("--listen");
    arguments.push_back(listen);
    if (!parent.empty()) {
      arguments.push_back("--parent");
      arguments.push_back(parent);
    }
    arguments.push_back("--name");
    arguments.push_back(name);
    startWith(arguments);
  }

  // Ends the router now with `signal` (SIGKILL: as if it crashed) and waits for it.
  void stop(int signal) {
    if (pid_ > 0) {
      kill(pid_, signal);
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

  // "tcp://127.0.0.1:PORT", as a local settings designator.
  std::wstring designator() const { return std::wstring(address_.begin(), address_.end()); }
  std::string const& address() const { return address_; }

 private:
  // Reads the router's stdout until "listening on ADDRESS", at most 20 s.
  static std::string readAddress(int fd) {
    std::string text;
    char const marker[] = "listening on ";
    for (;;) {
      struct pollfd p = {fd, POLLIN, 0};
      if (poll(&p, 1, 20000) <= 0) throw std::runtime_error("the router printed no address within 20 s");
      char buffer[256];
      ssize_t n = read(fd, buffer, sizeof buffer);
      if (n <= 0) throw std::runtime_error("the router exited before listening: " + text);
      text.append(buffer, static_cast<size_t>(n));
      size_t at = text.find(marker);
      if (at == std::string::npos) continue;
      size_t end = text.find('\n', at);
      if (end == std::string::npos) continue;
      return text.substr(at + std::strlen(marker), end - at - std::strlen(marker));
    }
  }

  pid_t pid_;
  std::string address_;

  TestRouter(TestRouter const&);
  TestRouter& operator=(TestRouter const&);
};

#endif
