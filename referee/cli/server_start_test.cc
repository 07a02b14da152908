// The checks and the undo around a server's start: an address in use or
// not this host's, TLS files that do not load, and what a failed start
// made on disk, removed again.
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/cli/listen_address.h"
#include "referee/cli/start_rollback.h"
#include "referee/cli/tls_files.h"
#include "referee/core/log_sink.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A loopback TCP socket listening on a port of its own, closed with it.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    if (fd_ < 0 ||
        bind(fd_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        listen(fd_, 1) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      return;
    }
    port_ = ntohs(address.sin_port);
  }
  ~Listener() {
    if (fd_ >= 0) close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(ListenAddressTest, AnAddressInUseIsNamedWithWhy) {
  const Listener listener;
  ASSERT_GT(listener.port(), 0);
  const std::string address = absl::StrCat("127.0.0.1:", listener.port());
  const absl::Status status = CheckListenAddress(address);
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_EQ(status.message(), absl::StrCat("cannot listen on ", address,
                                           ": Address already in use"));
}

TEST(ListenAddressTest, AFreeAddressPasses) {
  EXPECT_TRUE(CheckListenAddress("127.0.0.1:0").ok());
  EXPECT_TRUE(CheckListenAddress("localhost:0").ok());
  // Left to gRPC.
  EXPECT_TRUE(CheckListenAddress("ipv4:127.0.0.1:0").ok());
}

// A Unix stream socket bound to the path `path` (with `abstract`, the
// abstract name) and listening, closed with the object.
class UnixListener {
 public:
  UnixListener(const std::string& path, bool abstract) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + (abstract ? 1 : 0), path.data(),
                path.size());
    // One byte more: a path's terminating zero, an abstract name's leading
    // one.
    const socklen_t size = static_cast<socklen_t>(
        offsetof(sockaddr_un, sun_path) + path.size() + 1);
    ok_ = fd_ >= 0 &&
          bind(fd_, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
          listen(fd_, 1) == 0;
  }
  ~UnixListener() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ok_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

// gRPC unlinks a socket file in its way and binds anew: a second referee
// on the path would take every new client of the first unnoticed.
TEST(ListenAddressTest, AUnixSocketAnotherServerListensOnIsRefused) {
  const TempDir dir("listen-unix");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("referee.sock");
  const UnixListener listener(path, /*abstract=*/false);
  ASSERT_TRUE(listener.ok());
  for (const std::string& address : {"unix:" + path, "unix://" + path}) {
    const absl::Status status = CheckListenAddress(address);
    EXPECT_TRUE(absl::IsUnavailable(status)) << status;
    EXPECT_EQ(status.message(),
              absl::StrCat("cannot listen on ", address,
                           ": another server listens on this socket"));
  }
  EXPECT_TRUE(fs::exists(path));  // Left alone.
}

TEST(ListenAddressTest, AUnixSocketLeftByAServerGoneOrANewPathPasses) {
  const TempDir dir("listen-unix");
  ASSERT_TRUE(dir.ok());
  const std::string left = dir.File("left.sock");
  {
    const UnixListener gone(left, /*abstract=*/false);
    ASSERT_TRUE(gone.ok());
  }
  ASSERT_TRUE(fs::is_socket(left));  // Nobody listens: gRPC replaces it.
  EXPECT_TRUE(CheckListenAddress("unix:" + left).ok());
  const std::string fresh = dir.File("new.sock");
  EXPECT_TRUE(CheckListenAddress("unix:" + fresh).ok());
  EXPECT_FALSE(fs::exists(fresh));  // The check's own bind leaves nothing.
}

TEST(ListenAddressTest, AUnixPathThatCannotTakeASocketIsNamedWithWhy) {
  const TempDir dir("listen-unix");
  ASSERT_TRUE(dir.ok());
  const std::string file = dir.File("plain");
  std::ofstream(file) << "not a socket\n";
  absl::Status status = CheckListenAddress("unix:" + file);
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_EQ(status.message(),
            absl::StrCat("cannot listen on unix:", file,
                         ": the path exists and is not a socket"));
  status = CheckListenAddress("unix:" + dir.File("missing/referee.sock"));
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr(": No such file or directory"));
  for (const std::string& bad :
       {std::string("unix:"), std::string("unix-abstract:"),
        "unix:/" + std::string(107, 'x')}) {
    status = CheckListenAddress(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << bad;
    EXPECT_THAT(status.message(), HasSubstr("needs a name of 1 to 107 bytes"))
        << bad;
  }
}

TEST(ListenAddressTest, AnAbstractUnixNameInUseIsRefused) {
  const std::string name = absl::StrCat("pyramid-listen-test-", getpid());
  EXPECT_TRUE(CheckListenAddress("unix-abstract:" + name).ok());
  const UnixListener listener(name, /*abstract=*/true);
  ASSERT_TRUE(listener.ok());
  const absl::Status status = CheckListenAddress("unix-abstract:" + name);
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr(": Address already in use"));
}

TEST(ListenAddressTest, OnlyAUnixSocketHasNoPort) {
  EXPECT_TRUE(ListensOnPort("127.0.0.1:0"));
  EXPECT_TRUE(ListensOnPort("[::1]:50051"));
  EXPECT_TRUE(ListensOnPort("ipv4:127.0.0.1:1"));
  EXPECT_FALSE(ListensOnPort("unix:/tmp/referee.sock"));
  EXPECT_FALSE(ListensOnPort("unix-abstract:referee"));
}

TEST(ListenAddressTest, AnAddressNotThisHostsOrOfTheWrongFormIsNamed) {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): no host has it.
  absl::Status status = CheckListenAddress("192.0.2.1:0");
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_EQ(status.message(),
            "cannot listen on 192.0.2.1:0: Cannot assign requested address");
  for (const char* bad : {"bogus", "127.0.0.1:70000", "127.0.0.1:x"}) {
    status = CheckListenAddress(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << bad;
    EXPECT_THAT(status.message(), HasSubstr("--listen is HOST:PORT")) << bad;
  }
}

class StartRollbackTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(tmp_.ok()); }
  std::string File(const std::string& name) const { return tmp_.File(name); }
  static void Write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  TempDir tmp_{"start-rollback"};
};

TEST_F(StartRollbackTest, DirectoriesItMadeGoWithWhatIsInThem) {
  StartRollback rollback;
  ASSERT_TRUE(rollback.CreateDirectories(File("a/b/c/"), "--data_dir").ok());
  ASSERT_TRUE(fs::is_directory(File("a/b/c")));
  Write(File("a/b/c/key"), "secret");
  rollback.Undo();
  EXPECT_FALSE(fs::exists(File("a")));
  EXPECT_TRUE(fs::exists(tmp_.path()));
}

TEST_F(StartRollbackTest, AnExistingDirectoryLosesOnlyWhatWasAdded) {
  const fs::path dir = File("data");
  fs::create_directories(dir / "logs");
  Write(dir / "registry", "old");
  Write(dir / "logs/old.log", "old log");
  StartRollback rollback;
  ASSERT_TRUE(rollback.CreateDirectories(dir, "--data_dir").ok());
  ASSERT_TRUE(rollback.CreateDirectories(dir / "logs", "logs").ok());
  rollback.WatchDirectory(dir, {"referee.key", "journal", "tlog.sqlite3"});
  Write(dir / "lock", "");
  rollback.Made(dir / "lock");
  Write(dir / "referee.key", "new");
  Write(dir / "referee.key.pub", "new");
  Write(dir / "tlog.sqlite3-wal", "new");
  fs::create_directories(dir / "journal/sub");
  Write(dir / "registry", "changed");  // Changes to what was there stay.
  // What another program adds meanwhile (DATA_DIR may be a shared one)
  // stays, even when its name begins like one of the start's.
  Write(dir / "notes.txt", "theirs");
  Write(dir / "referee.keyring", "theirs");
  fs::create_directories(dir / "journals");
  rollback.Undo();
  EXPECT_FALSE(fs::exists(dir / "lock"));
  EXPECT_FALSE(fs::exists(dir / "referee.key"));
  EXPECT_FALSE(fs::exists(dir / "referee.key.pub"));
  EXPECT_FALSE(fs::exists(dir / "tlog.sqlite3-wal"));
  EXPECT_FALSE(fs::exists(dir / "journal"));
  EXPECT_EQ(ReadFileToString((dir / "notes.txt").string()).value_or(""),
            "theirs");
  EXPECT_EQ(ReadFileToString((dir / "referee.keyring").string()).value_or(""),
            "theirs");
  EXPECT_TRUE(fs::is_directory(dir / "journals"));
  EXPECT_EQ(*ReadFileToString((dir / "registry").string()), "changed");
  EXPECT_EQ(*ReadFileToString((dir / "logs/old.log").string()), "old log");
}

TEST_F(StartRollbackTest, AStartThatKeepsLosesNothing) {
  StartRollback rollback;
  ASSERT_TRUE(rollback.CreateDirectories(File("new"), "--data_dir").ok());
  rollback.WatchDirectory(File("new"), {"key"});
  Write(File("new/key"), "k");
  rollback.Keep();
  rollback.Undo();
  EXPECT_TRUE(fs::exists(File("new/key")));
}

TEST_F(StartRollbackTest, ADirectoryThatCannotBeMadeIsNamed) {
  Write(File("file"), "");
  StartRollback rollback;
  const absl::Status status =
      rollback.CreateDirectories(File("file/data"), "--data_dir");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            absl::StrCat("cannot create --data_dir ", File("file/data"),
                         ": Not a directory"));
  rollback.Undo();
  EXPECT_TRUE(fs::exists(File("file")));
}

// A file where the directory should be is named as such; it was "cannot
// create --data_dir FILE: Not a directory", as if making it had failed.
TEST_F(StartRollbackTest, AFileInTheDirectorysPlaceIsNamed) {
  Write(File("file"), "");
  StartRollback rollback;
  const absl::Status status =
      rollback.CreateDirectories(File("file"), "--data_dir");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), absl::StrCat("--data_dir ", File("file"),
                                           " exists and is not a directory"));
  rollback.Undo();
  EXPECT_TRUE(fs::exists(File("file")));
}

// A self-signed P-256 certificate and its key, in PEM.
struct Pem {
  std::string cert, key;
};
Pem SelfSigned() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x509 = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(x509), 1);
  X509_gmtime_adj(X509_getm_notBefore(x509), 0);
  X509_gmtime_adj(X509_getm_notAfter(x509), 3600);
  X509_set_pubkey(x509, key);
  X509_NAME* name = X509_get_subject_name(x509);
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(x509, name);
  X509_sign(x509, key, EVP_sha256());
  Pem pem;
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, x509);
  // Two statements: the pointer is set by BIO_get_mem_data, which a single
  // call's arguments would not order before the pointer is read.
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  pem.cert.assign(data, size);
  BIO_free(bio);
  bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  size = BIO_get_mem_data(bio, &data);
  pem.key.assign(data, size);
  BIO_free(bio);
  X509_free(x509);
  EVP_PKEY_free(key);
  return pem;
}

using TlsFilesTest = StartRollbackTest;

TEST_F(TlsFilesTest, TlsFilesThatDoNotLoadAreNamedWithWhy) {
  const Pem pem = SelfSigned();
  const Pem other = SelfSigned();
  const std::string cert = File("cert.pem");
  const std::string key = File("key.pem");
  Write(cert, pem.cert);
  Write(key, pem.key);
  EXPECT_TRUE(CheckTlsFiles(cert, key).ok()) << CheckTlsFiles(cert, key);
  EXPECT_EQ(CheckTlsFiles(cert, File("missing.pem")).message(),
            absl::StrCat("--tls_key: cannot open ", File("missing.pem"),
                         ": No such file or directory"));
  EXPECT_EQ(CheckTlsFiles(key, key).message(),
            absl::StrCat("--tls_cert: ", key,
                         " holds no PEM certificate (-----BEGIN "
                         "CERTIFICATE-----)"));
  EXPECT_THAT(CheckTlsFiles(cert, cert).message(),
              HasSubstr(absl::StrCat("--tls_key: ", cert,
                                     " holds no PEM private key")));
  Write(File("other.pem"), other.key);
  EXPECT_EQ(
      CheckTlsFiles(cert, File("other.pem")).message(),
      absl::StrCat("--tls_key: ", File("other.pem"),
                   " is not the key of the certificate in --tls_cert ", cert));
}

}  // namespace
}  // namespace pyramid
