//===- TesselRunTest.cpp - The tessel-run tool ----------------------------===//
//
// Calls the tool's library in-process (runTool) for behaviour, and the
// executable once for the exit status plumbing.
//
//===----------------------------------------------------------------------===//

#include "OutputWriter.h"
#include "RunTool.h"
#include "TensorPrinter.h"
#include "TestArtifacts.h"
#include "io/Npy.h"

#include <onnx/onnx_pb.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <sstream>
#include <sys/wait.h>

using namespace tessel;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

io::HostTensor floats(std::vector<int64_t> shape, std::vector<float> v) {
  io::HostTensor t;
  t.shape = std::move(shape);
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

std::vector<float> readFloats(const std::string &path,
                              std::vector<int64_t> *shape = nullptr) {
  io::HostTensor t;
  std::string error;
  EXPECT_TRUE(io::readNpyFile(path, t, error)) << error;
  EXPECT_EQ(t.dtype, format::DType::F32);
  if (shape)
    *shape = t.shape;
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

class TesselRun : public ::testing::Test {
protected:
  void SetUp() override {
    model = dir.file("add.tsl");
    test::writeBytes(model, format::serialize(test::addModel()));
    write("a.npy", floats({3}, {1, 2, 3}));
    write("b.npy", floats({3}, {10, 20, 30}));
    out = dir.file("out");
  }

  void write(const std::string &name, const io::HostTensor &t) {
    std::string error;
    ASSERT_TRUE(io::writeNpyFile(dir.file(name), t, error)) << error;
  }

  int run(std::vector<std::string> args) {
    stdoutText.str("");
    stderrText.str("");
    return run::runTool(args, stdoutText, stderrText);
  }

  /// Expects exit 2, one error line containing `message`, and no output.
  void expectUserError(std::vector<std::string> args,
                       const std::string &message) {
    EXPECT_EQ(run(args), 2);
    std::string err = stderrText.str();
    EXPECT_THAT(err, StartsWith("tessel-run: error: "));
    EXPECT_THAT(err, HasSubstr(message));
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "wrote outputs";
  }

  test::TempDir dir;
  std::string model, out;
  std::ostringstream stdoutText, stderrText;
};

TEST_F(TesselRun, WritesOneNpyPerOutput) {
  ASSERT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--output-dir", out}),
            0)
      << stderrText.str();
  std::vector<int64_t> shape;
  EXPECT_THAT(readFloats(out + "/y.npy", &shape), ElementsAre(12, 24, 36));
  EXPECT_THAT(shape, ElementsAre(3));
  EXPECT_THAT(readFloats(out + "/s.npy", &shape), ElementsAre(72));
  EXPECT_TRUE(shape.empty());
  std::vector<std::string> written;
  for (const auto &e : std::filesystem::directory_iterator(out))
    written.push_back(e.path().filename().string());
  std::sort(written.begin(), written.end());
  EXPECT_THAT(written, ElementsAre("s.npy", "y.npy")); // no temporaries left
}

TEST_F(TesselRun, ComparesWithReferenceOutputs) {
  std::string ref = dir.file("ref");
  ASSERT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--output-dir", ref}),
            0)
      << stderrText.str();
  // Same inputs: every output matches, nothing is written without -o.
  EXPECT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--compare", ref}),
            0)
      << stderrText.str();
  EXPECT_THAT(stdoutText.str(), HasSubstr("compare: y: max abs error 0"));
  EXPECT_FALSE(std::filesystem::exists("y.npy"));
  // Other inputs: the outputs differ, exit 3 names the reference folder.
  write("b2.npy", floats({3}, {10, 20, 31}));
  EXPECT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b2.npy"), "--compare", ref}),
            run::kExitOutputsDiffer);
  EXPECT_THAT(stdoutText.str(), HasSubstr("(DIFFERS)"));
  EXPECT_THAT(stderrText.str(), HasSubstr("outputs differ from the reference"));
  // A loose enough tolerance accepts the difference.
  EXPECT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b2.npy"), "--compare", ref, "--rtol", "0.1"}),
            0)
      << stdoutText.str();
}

TEST_F(TesselRun, TimesRepeatedRuns) {
  ASSERT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--print", "--runs", "3"}),
            0)
      << stderrText.str();
  EXPECT_THAT(stdoutText.str(), HasSubstr("timing: 3 runs on cpu: median "));
  expectUserError({model, "--runs", "1.5"},
                  "--runs needs a non-negative integer");
  expectUserError({model, "--rtol", "x"}, "--rtol needs a non-negative number");
}

TEST_F(TesselRun, ThreadsOptionReachesTheSessionAndTheProfile) {
  ASSERT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--print", "--threads", "2",
                 "--profile"}),
            0)
      << stderrText.str();
  EXPECT_THAT(stdoutText.str(), HasSubstr("threads: 2 per CPU launch\n"));
  EXPECT_THAT(stdoutText.str(), HasSubstr("[12. 24. 36.]"));
  ASSERT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--print", "--threads=1",
                 "--profile"}),
            0)
      << stderrText.str();
  EXPECT_THAT(stdoutText.str(), HasSubstr("threads: 1 per CPU launch\n"));
  expectUserError({model, "--threads", "-1"},
                  "--threads needs a non-negative integer, got '-1'");
  expectUserError({model, "--threads", "two"},
                  "--threads needs a non-negative integer, got 'two'");
  EXPECT_EQ(run({"--help"}), 0);
  EXPECT_THAT(stdoutText.str(), HasSubstr("-t, --threads N"));
}

TEST_F(TesselRun, InputsByFileNameAndEqualsSyntax) {
  ASSERT_EQ(run({model, dir.file("b.npy"), "-i", dir.file("a.npy"),
                 "--output-dir=" + out, "--device=cpu"}),
            0)
      << stderrText.str();
  EXPECT_THAT(readFloats(out + "/y.npy"), ElementsAre(12, 24, 36));
}

TEST_F(TesselRun, TensorProtoInputsNameThemselves) {
  for (const char *name : {"a", "b"}) {
    onnx::TensorProto p;
    p.set_name(name);
    p.set_data_type(onnx::TensorProto::FLOAT);
    p.add_dims(2);
    p.add_float_data(1);
    p.add_float_data(2);
    std::string s = p.SerializeAsString();
    test::writeBytes(dir.file(std::string("input_") + name + ".pb"),
                     std::vector<uint8_t>(s.begin(), s.end()));
  }
  ASSERT_EQ(run({model, "--input", dir.file("input_a.pb"), "--input",
                 dir.file("input_b.pb"), "-o", out}),
            0)
      << stderrText.str();
  EXPECT_THAT(readFloats(out + "/y.npy"), ElementsAre(3, 6));
}

TEST_F(TesselRun, PrintsWithoutWritingFiles) {
  ASSERT_EQ(run({model, "--input", "a=" + dir.file("a.npy"), "--input",
                 "b=" + dir.file("b.npy"), "--print"}),
            0)
      << stderrText.str();
  EXPECT_EQ(stdoutText.str(),
            "y: float32 [3]\n[12. 24. 36.]\ns: float32 []\n72.\n");
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"a.npy", "add.tsl", "b.npy"}));
}

TEST_F(TesselRun, SanitizesOutputFileNames) {
  format::Artifact m = test::addModel();
  m.outputs[0].name = "out/y:0";
  m.outputs[1].name = "out_y_0";
  test::writeBytes(model, format::serialize(m));
  ASSERT_EQ(run({model, "-i", "a=" + dir.file("a.npy"), "-i",
                 "b=" + dir.file("b.npy"), "-o", out}),
            0)
      << stderrText.str();
  EXPECT_THAT(readFloats(out + "/out_y_0.npy"), ElementsAre(12, 24, 36));
  EXPECT_THAT(readFloats(out + "/out_y_0_2.npy"), ElementsAre(72));
}

TEST_F(TesselRun, UserErrorsExitWith2AndWriteNothing) {
  std::string a = "a=" + dir.file("a.npy"), b = "b=" + dir.file("b.npy");
  expectUserError({model, "-i", a, "-o", out},
                  model + ": missing input 'b' (give --input b=FILE)");
  expectUserError(
      {model, "-i", a, "-i", b, "-i", "c=" + dir.file("a.npy"), "-o", out},
      model + ": unknown input 'c' (inputs: 'a', 'b')");
  expectUserError({model, "-i", a, "-i", "a=" + dir.file("b.npy"), "-o", out},
                  "input 'a' is given twice");
  expectUserError(
      {model, "-i", a, "-i", "b=" + dir.file("nope.npy"), "-o", out},
      dir.file("nope.npy") + ": No such file or directory");

  io::HostTensor ints;
  ints.dtype = format::DType::I64;
  ints.shape = {3};
  ints.data.resize(24);
  write("ints.npy", ints);
  expectUserError(
      {model, "-i", a, "-i", "b=" + dir.file("ints.npy"), "-o", out},
      dir.file("ints.npy") + ": input 'b': expected dtype float32, got int64");
  write("b4.npy", floats({4}, {1, 2, 3, 4}));
  expectUserError({model, "-i", a, "-i", "b=" + dir.file("b4.npy"), "-o", out},
                  "symbol 'batch' bound to 3 by input 'a' and 4 by input 'b'");
  write("b2d.npy", floats({1, 3}, {1, 2, 3}));
  expectUserError({model, "-i", a, "-i", "b=" + dir.file("b2d.npy"), "-o", out},
                  "input 'b': expected rank 1 [batch], got rank 2");

  test::writeBytes(dir.file("bad.tsl"), {'n', 'o', 't'});
  expectUserError({dir.file("bad.tsl"), "-i", a, "-i", b, "-o", out},
                  dir.file("bad.tsl") + ": truncated file");
  expectUserError({dir.file("none.tsl"), "-o", out},
                  dir.file("none.tsl") + ": No such file or directory");
  expectUserError({model, "-i", a, "-i", b, "-o", out, "--device", "tpu"},
                  "--device tpu: unknown device 'tpu'");
  expectUserError({model, "-i", a, "-i", b, "-o", out, "--bogus"},
                  "unknown option '--bogus'");
  expectUserError({}, "no artifact given");
  expectUserError({model, "--input"}, "option --input needs a value");
}

TEST_F(TesselRun, ArtifactWithoutKernelsForTheDevice) {
  test::writeBytes(model,
                   format::serialize(test::addModel({false, true, true, false})));
  expectUserError({model, "-i", "a=" + dir.file("a.npy"), "-i",
                   "b=" + dir.file("b.npy"), "-o", out},
                  model + ": artifact has no kernels for the CPU");
}

TEST_F(TesselRun, AbsentGpuIsAUserError) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda) {
    dlclose(cuda);
    GTEST_SKIP() << "libcuda.so.1 is present here";
  }
  expectUserError({model, "-i", "a=" + dir.file("a.npy"), "-i",
                   "b=" + dir.file("b.npy"), "-o", out, "--device", "cuda"},
                  "--device cuda: no CUDA driver found (libcuda.so.1: ");
}

TEST_F(TesselRun, FailedWriteLeavesNoPartialOutput) {
  std::filesystem::create_directories(out + "/s.npy"); // a directory in the way
  EXPECT_EQ(run({model, "-i", "a=" + dir.file("a.npy"), "-i",
                 "b=" + dir.file("b.npy"), "-o", out}),
            2);
  EXPECT_THAT(stderrText.str(), HasSubstr("s.npy: is a directory"));
  std::vector<std::string> left;
  for (const auto &e : std::filesystem::directory_iterator(out))
    left.push_back(e.path().filename().string());
  EXPECT_THAT(left, ElementsAre("s.npy")); // no y.npy, no temporary files
}

TEST_F(TesselRun, Help) {
  EXPECT_EQ(run({"--help"}), 0);
  EXPECT_THAT(stdoutText.str(), StartsWith("usage: tessel-run MODEL.tsl"));
}

TEST_F(TesselRun, ExecutableExitCodes) {
  std::string exe = test::tesselRunExecutable();
  int status = std::system((exe + " --help > /dev/null").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  status = std::system(
      (exe + " " + dir.file("none.tsl") + " 2> " + dir.file("err.txt"))
          .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::vector<uint8_t> err = test::readBytes(dir.file("err.txt"));
  EXPECT_EQ(std::string(err.begin(), err.end()),
            "tessel-run: error: " + dir.file("none.tsl") +
                ": No such file or directory\n");
}

TEST(OutputNames, AreSafeAndDistinct) {
  EXPECT_EQ(run::sanitizeFileName("out/y:0"), "out_y_0");
  EXPECT_EQ(run::sanitizeFileName("ok-name_1.2"), "ok-name_1.2");
  EXPECT_EQ(run::sanitizeFileName(".."), "__");
  EXPECT_EQ(run::sanitizeFileName(""), "_");
  EXPECT_EQ(run::sanitizeFileName("a b\xc3\xa9"), "a_b__");
  EXPECT_THAT(run::uniqueFileStems({"a/b", "a:b", "a_b", "c"}),
              ElementsAre("a_b", "a_b_2", "a_b_3", "c"));
}

TEST(Printer, NumpyStyle) {
  std::ostringstream os;
  io::HostTensor ints;
  ints.dtype = format::DType::I32;
  ints.shape = {2, 3};
  int32_t v[] = {1, -2, 3, 40, 5, 6};
  ints.data.assign(reinterpret_cast<uint8_t *>(v),
                   reinterpret_cast<uint8_t *>(v) + sizeof(v));
  run::printTensor(os, "t", ints);
  EXPECT_EQ(os.str(), "t: int32 [2, 3]\n[[ 1 -2  3]\n [40  5  6]]\n");

  os.str("");
  run::printTensor(os, "f", floats({3}, {0.5f, 2.0f, -1.25f}));
  EXPECT_EQ(os.str(), "f: float32 [3]\n[  0.5    2. -1.25]\n");

  os.str("");
  io::HostTensor cube = floats({2, 1, 2}, {1, 2, 3, 4});
  run::printTensor(os, "c", cube);
  EXPECT_EQ(os.str(), "c: float32 [2, 1, 2]\n[[[1. 2.]]\n\n [[3. 4.]]]\n");
}

TEST(Printer, SummarizesLargeTensors) {
  std::vector<float> v(2000);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(i);
  std::ostringstream os;
  run::printTensor(os, "big", floats({2, 1000}, v));
  EXPECT_EQ(os.str(), "big: float32 [2, 1000]\n"
                      "[[   0.    1.    2. ...  997.  998.  999.]\n"
                      " [1000. 1001. 1002. ... 1997. 1998. 1999.]]\n");
}

} // namespace
