//! The client-side limits of §8B, checked before any request: a `choice` offers 1..255
//! options, a `score` rubric has 2..10 levels, and an evaluation asks at least one question.
//! The error names the offending question's key and the limit; nothing is sent.

use super::error::{ClassifierError, MAX_CHOICE_OPTIONS, MAX_SCORE_LEVELS, MIN_SCORE_LEVELS};
use super::question::{Question, Questions};

/// The first limit `questions` breaks, in the caller's order.
pub fn check(questions: &Questions) -> Result<(), ClassifierError> {
    if questions.is_empty() {
        return Err(ClassifierError::NoQuestions);
    }
    for (key, question) in questions {
        match question {
            Question::Choice { criteria, .. }
                if criteria.is_empty() || criteria.len() > MAX_CHOICE_OPTIONS =>
            {
                return Err(ClassifierError::ChoiceOptions {
                    key: key.clone(),
                    got: criteria.len(),
                });
            }
            Question::Score { criteria, .. }
                if !(MIN_SCORE_LEVELS..=MAX_SCORE_LEVELS).contains(&criteria.len()) =>
            {
                return Err(ClassifierError::ScoreLevels {
                    key: key.clone(),
                    got: criteria.len(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(key: &str, q: Question) -> Questions {
        let mut qs = Questions::new();
        qs.insert("fine".into(), Question::noul("ok?"));
        qs.insert(key.into(), q);
        qs
    }

    fn choice(n: usize) -> Question {
        Question::choice(
            "Pick",
            (0..n).map(|i| (format!("o{i}"), format!("option {i}"))),
        )
    }

    fn score(n: usize) -> Question {
        Question::score("Rate", (0..n).map(|i| format!("level {i}")))
    }

    #[test]
    fn a_choice_takes_one_to_255_options() {
        assert_eq!(check(&one("moves", choice(1))), Ok(()));
        assert_eq!(check(&one("moves", choice(255))), Ok(()));
        for n in [0, 256] {
            assert_eq!(
                check(&one("moves", choice(n))),
                Err(ClassifierError::ChoiceOptions {
                    key: "moves".into(),
                    got: n
                })
            );
        }
    }

    #[test]
    fn a_score_takes_two_to_ten_levels() {
        assert_eq!(check(&one("grade", score(2))), Ok(()));
        assert_eq!(check(&one("grade", score(10))), Ok(()));
        for n in [0, 1, 11] {
            let err = check(&one("grade", score(n))).unwrap_err();
            assert_eq!(
                err,
                ClassifierError::ScoreLevels {
                    key: "grade".into(),
                    got: n
                }
            );
            assert!(err.to_string().contains("\"grade\""), "{err}");
        }
    }

    #[test]
    fn no_question_is_an_error() {
        assert_eq!(check(&Questions::new()), Err(ClassifierError::NoQuestions));
    }
}
